// The test files the Test Explorer knows, by URI string, with the agent file each names. It also
// counts, for every folder above a known file, how many known files it holds: a deletion (reported
// for any file or folder of the workspace) is then answered in constant time when it holds no test
// file, and deleting a folder of thousands of files stays linear instead of files x deletions.

export class KnownTestFiles {
  /** Test file URI -> the agent file's path it names (undefined: not read yet, or names none). */
  private readonly agents = new Map<string, string | undefined>();
  /** Folder URI (no trailing slash) -> known test files at any depth below it. */
  private readonly filesBelow = new Map<string, number>();
  /** Deletions that had to look through every known file: only those of folders holding some. */
  scans = 0;

  get size(): number {
    return this.agents.size;
  }

  has(uri: string): boolean {
    return this.agents.has(uri);
  }

  agentOf(uri: string): string | undefined {
    return this.agents.get(uri);
  }

  set(uri: string, agentFile: string | undefined): void {
    if (!this.agents.has(uri)) for (const folder of foldersAbove(uri)) this.filesBelow.set(folder, (this.filesBelow.get(folder) ?? 0) + 1);
    this.agents.set(uri, agentFile);
  }

  delete(uri: string): boolean {
    if (!this.agents.delete(uri)) return false;
    for (const folder of foldersAbove(uri)) {
      const left = (this.filesBelow.get(folder) ?? 1) - 1;
      if (left > 0) this.filesBelow.set(folder, left);
      else this.filesBelow.delete(folder);
    }
    return true;
  }

  /** The known test files that a deletion of `uri` takes away: itself, or those under it as a folder. */
  deletedWith(uri: string): string[] {
    const folder = uri.endsWith('/') ? uri.slice(0, -1) : uri;
    const gone = this.agents.has(folder) ? [folder] : [];
    if (!this.filesBelow.has(folder)) return gone;
    const prefix = `${folder}/`;
    this.scans++;
    for (const key of this.agents.keys()) if (key.startsWith(prefix)) gone.push(key);
    return gone;
  }

  /** The known test files that name this agent file. */
  namingAgent(agentFile: string): string[] {
    return [...this.agents].filter(([, agent]) => agent === agentFile).map(([uri]) => uri);
  }
}

/** The folders above a URI's path, nearest first, down to (not including) the authority. */
function* foldersAbove(uri: string): Generator<string> {
  const pathStart = uri.indexOf('/', uri.indexOf('://') + 3);
  for (let end = uri.lastIndexOf('/'); end > pathStart; end = uri.lastIndexOf('/', end - 1)) yield uri.slice(0, end);
}
