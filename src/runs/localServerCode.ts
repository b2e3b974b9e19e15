// The local agent server's code (HTTP server, workflow engine, multipart parsing, proxy agents), in
// a bundle of its own (esbuild.mjs lazyModules) that loads when the server first starts.
export { anyHostDispatcher } from '../core/http/proxy';
export { startAgentServer } from '../core/server/agentServer';
