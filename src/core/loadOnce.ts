// A module (or anything else costly) loaded on first use and shared by later callers. A failed
// load is not kept: the next call tries again, so one failure (a bundle being rewritten, a full
// disk) does not disable a feature for the life of the window.

/** A loader that runs `load` once while it succeeds, and again after it fails. */
export function loadOnce<T>(load: () => Promise<T>): () => Promise<T> {
  let loading: Promise<T> | undefined;
  return () => {
    loading ??= load().catch((error: unknown) => {
      loading = undefined;
      throw error;
    });
    return loading;
  };
}
