// The agent files under the served folder as the MCP server offers them: found by the one walk
// (core/document/agentFiles.ts) and named by core/tools/agentTools.ts without being read, so the
// tool list of a large folder answers at once; each file is read and validated only when a tool
// needs it (its own tool, list_agents, a run), and kept by modification time and size. A file with
// errors is listed with its problems and never run.
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

/** An agent file the walk found, named, not read. */
export interface FoundAgent {
  /** Its tool name. */
  readonly name: string;
  /** Relative to the served folder, "/"-separated. */
  readonly path: string;
  readonly absolute: string;
}

export interface CatalogueEntry extends FoundAgent {
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
  readonly entry: CatalogueEntry;
}

export interface AgentFiles {
  readonly found: readonly FoundAgent[];
  /** More agent files than MAX_AGENT_FILES were found: the rest are not served. */
  readonly capped: boolean;
}

/** Files read at the same time: their reads overlap, their checks take turns. */
const READ_CONCURRENCY = 8;

export class AgentCatalogue {
  /** At most MAX_AGENT_FILES: each walk forgets the files it no longer finds. */
  private readonly files = new Map<string, ReadFile>();
  private current?: Promise<AgentFiles>;
  private stale = true;

  constructor(private readonly root: string) {}

  /** The agent files as they are now, named, not read: walked again only after `changed()`. */
  agentFiles(): Promise<AgentFiles> {
    if (this.stale || !this.current) {
      this.stale = false;
      this.current = this.walk();
      // A failed walk is tried again on the next call.
      this.current.catch(() => (this.stale = true));
    }
    return this.current;
  }

  /** Something under the folder changed: the next agentFiles() walks it again (unchanged files are not read again). */
  changed(): void {
    this.stale = true;
  }

  /** The files read and checked, in their order; those removed since the walk are left out. */
  async entries(found: readonly FoundAgent[]): Promise<CatalogueEntry[]> {
    const read: (CatalogueEntry | undefined)[] = new Array(found.length);
    let next = 0;
    const worker = async (): Promise<void> => {
      while (next < found.length) {
        const index = next++;
        read[index] = await this.entry(found[index]!);
      }
    };
    await Promise.all(Array.from({ length: Math.min(READ_CONCURRENCY, found.length) }, worker));
    return read.filter((entry): entry is CatalogueEntry => entry !== undefined);
  }

  /** One file read and checked, again only when its modification time or size changed; undefined once it is gone. */
  async entry(found: FoundAgent): Promise<CatalogueEntry | undefined> {
    const info = await stat(found.absolute).catch(() => undefined);
    if (!info) return undefined;
    const known = this.files.get(found.absolute);
    if (known && known.mtimeMs === info.mtimeMs && known.size === info.size && known.entry.name === found.name) return known.entry;
    const entry = await readEntry(found);
    this.files.set(found.absolute, { mtimeMs: info.mtimeMs, size: info.size, entry });
    return entry;
  }

  private async walk(): Promise<AgentFiles> {
    const paths = await findFilesUnder(this.root, AGENT_FILE, undefined, MAX_AGENT_FILES + 1);
    const capped = paths.length > MAX_AGENT_FILES;
    const kept = paths.slice(0, MAX_AGENT_FILES);
    const relativePaths = kept.map((path) => relative(this.root, path).split(sep).join('/'));
    const names = agentToolNames(relativePaths);
    const found = kept.map((absolute, index) => ({ name: names.get(relativePaths[index]!)!, path: relativePaths[index]!, absolute }));
    const present = new Set(kept);
    for (const path of this.files.keys()) if (!present.has(path)) this.files.delete(path);
    return { found, capped };
  }
}

async function readEntry(found: FoundAgent): Promise<CatalogueEntry> {
  const { name, path, absolute } = found;
  const read = await readTextFile(absolute);
  if ('error' in read) return { name, path, absolute, problems: [], unreadable: read.error };
  try {
    const agent = loadAgent(read.text, path);
    return { name, path, absolute, agent, model: agent.model, problems: [] };
  } catch (error) {
    if (error instanceof AgentFileError)
      return {
        name,
        path,
        absolute,
        ...(error.model ? { model: error.model } : {}),
        problems: error.problems.filter((problem) => problem.severity === 'error'),
      };
    throw error;
  }
}
