// Entry point of the Restricted Mode suite: the integration suite's runner, over the tests next to
// this file (the host starts it with Workspace Trust on and the folder not trusted).
export { run } from '../integration/index';
