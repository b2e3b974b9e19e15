// The agent files under the served folder as the MCP server offers them: found by the one walk
// (core/document/agentFiles.ts), each read and validated once per change (kept by modification time
// and size), named by core/tools/agentTools.ts. A file with errors is listed with its problems and
// never run.
import { stat } from 'node:fs/promises';
import { relative, sep } from 'node:path';
import { AGENT_FILE, findFilesUnder } from '../core/document/agentFiles';
import type { AgentModel } from '../core/document/model';
import type { Problem } from '../core/document/problems';
import { readTextFile } from '../core/document/readTextFile';
import { loadAgent, AgentFileError } from '../core/engine/agentPlan';
import type { LoadedAgent } from '../core/engine/agentPlan';
import { MAX_AGENT_FILES } from '../core/limits';
import { agentToolNames } from '../core/tools/agentTools';

export interface CatalogueEntry {
  /** Its tool name. */
  readonly name: string;
  /** Relative to the served folder, "/"-separated. */
  readonly path: string;
  readonly absolute: string;
  /** Ready to run: the file has no errors. */
  readonly agent?: LoadedAgent;
  /** The declarations, when the YAML could be read. */
  readonly model?: AgentModel;
  /** Its errors (when it cannot run), or why it could not be read. */
  readonly problems: readonly Problem[];
  readonly unreadable?: string;
}

interface ReadFile {
  readonly mtimeMs: number;
  readonly size: number;
  readonly entry: Omit<CatalogueEntry, 'name'>;
}

export interface Catalogue {
  readonly entries: readonly CatalogueEntry[];
  /** More agent files than MAX_AGENT_FILES were found: the rest are not served. */
  readonly capped: boolean;
}

export class AgentCatalogue {
  private readonly files = new Map<string, ReadFile>();
  private current?: Promise<Catalogue>;
  private stale = true;

  constructor(private readonly root: string) {}

  /** The agent files as they are now: read again only after `changed()`. */
  catalogue(): Promise<Catalogue> {
    if (this.stale || !this.current) {
      this.stale = false;
      this.current = this.scan();
      // A failed scan is tried again on the next call.
      this.current.catch(() => (this.stale = true));
    }
    return this.current;
  }

  /** Something under the folder changed: the next catalogue() walks it again (unchanged files are not read again). */
  changed(): void {
    this.stale = true;
  }

  private async scan(): Promise<Catalogue> {
    const found = await findFilesUnder(this.root, AGENT_FILE, undefined, MAX_AGENT_FILES + 1);
    const capped = found.length > MAX_AGENT_FILES;
    const paths = found.slice(0, MAX_AGENT_FILES);
    const relativePaths = paths.map((path) => relative(this.root, path).split(sep).join('/'));
    const names = agentToolNames(relativePaths);
    const kept = new Set<string>();
    const entries: CatalogueEntry[] = [];
    for (let index = 0; index < paths.length; index++) {
      const absolute = paths[index]!;
      const path = relativePaths[index]!;
      kept.add(absolute);
      const read = await this.read(absolute, path);
      if (read) entries.push({ ...read, name: names.get(path)! });
    }
    for (const path of this.files.keys()) if (!kept.has(path)) this.files.delete(path);
    return { entries, capped };
  }

  private async read(absolute: string, path: string): Promise<Omit<CatalogueEntry, 'name'> | undefined> {
    const info = await stat(absolute).catch(() => undefined);
    // Removed while walking.
    if (!info) return undefined;
    const known = this.files.get(absolute);
    if (known && known.mtimeMs === info.mtimeMs && known.size === info.size) return known.entry;
    const entry = await readEntry(absolute, path);
    this.files.set(absolute, { mtimeMs: info.mtimeMs, size: info.size, entry });
    return entry;
  }
}

async function readEntry(absolute: string, path: string): Promise<Omit<CatalogueEntry, 'name'>> {
  const read = await readTextFile(absolute);
  if ('error' in read) return { path, absolute, problems: [], unreadable: read.error };
  try {
    const agent = loadAgent(read.text, path);
    return { path, absolute, agent, model: agent.model, problems: [] };
  } catch (error) {
    if (error instanceof AgentFileError)
      return {
        path,
        absolute,
        ...(error.model ? { model: error.model } : {}),
        problems: error.problems.filter((problem) => problem.severity === 'error'),
      };
    throw error;
  }
}
