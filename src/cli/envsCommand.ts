// `agent-workflows envs`: lists the environments of agent-workflows.yaml (the nearest one above the
// current folder, or --envs-file) with their origin, account, protection and the default. Exits 2
// when the file has errors (they are printed), 0 with a hint when there is no file.
import { displayOrigin, ENVIRONMENTS_FILE_NAME } from '../core/environments/environmentsFile';
import { ENVIRONMENT_ENV, loadEnvironments } from './environmentOptions';
import type { EnvironmentFlags } from './environmentOptions';
import { ExitCode } from './io';
import type { CliIo } from './io';

export interface EnvsFlags extends Pick<EnvironmentFlags, 'envsFile'> {
  readonly json?: boolean;
}

export async function envsCommand(flags: EnvsFlags, io: CliIo): Promise<number> {
  const { path, file, where } = await loadEnvironments(flags, io.cwd, io);
  if (!file) {
    if (flags.json) io.stdout(`${JSON.stringify({ file: null, default: null, environments: [] })}\n`);
    io.stderr(
      `No environments: no ${where.startsWith(ENVIRONMENTS_FILE_NAME) ? where : `${ENVIRONMENTS_FILE_NAME} (looked for ${where})`}. Create one to run agents in named deployments (see docs/environments.md); without it, runs use each agent file's deployment block.\n`,
    );
    return ExitCode.ok;
  }
  const rows = [...file.environments.values()].map((environment) => ({
    name: environment.name,
    origin: displayOrigin(environment.baseUrl),
    baseUrl: environment.baseUrl,
    account: environment.account,
    protected: environment.protected,
    default: environment.name === file.defaultName,
    ...(environment.statusPath !== undefined ? { statusPath: environment.statusPath } : {}),
  }));
  if (flags.json) {
    io.stdout(`${JSON.stringify({ file: path ?? null, default: file.defaultName ?? null, environments: rows })}\n`);
    return ExitCode.ok;
  }
  const width = (values: string[]): number => Math.max(...values.map((value) => value.length));
  const nameWidth = width(rows.map((row) => row.name));
  const originWidth = width(rows.map((row) => row.origin));
  const accountWidth = width(rows.map((row) => row.account));
  io.stdout(`${path}:\n`);
  for (const row of rows) {
    const marks = [row.default ? 'default' : '', row.protected ? 'protected' : ''].filter(Boolean).join(', ');
    io.stdout(
      `${row.default ? '*' : ' '} ${row.name.padEnd(nameWidth)}  ${row.origin.padEnd(originWidth)}  account ${row.account.padEnd(accountWidth)}${marks ? `  (${marks})` : ''}`.trimEnd() +
        '\n',
    );
  }
  const chosen = io.env[ENVIRONMENT_ENV]?.trim();
  if (chosen)
    io.stderr(`${ENVIRONMENT_ENV} selects "${chosen}"${file.environments.has(chosen) ? '' : ', which this file does not declare'}.\n`);
  return ExitCode.ok;
}
