/** The credential backend end to end on a real PostgreSQL server (SKIP when the package is missing): see test/support/backend-e2e.ts. */
import { backendE2eSuite } from '../support/backend-e2e.js';
import { cliInThisProcess } from '../support/cli.js';

// `runCli` runs the CLI in this process (test/support/cli.ts): these tests are about the backend and its clients, not the process boundary.
cliInThisProcess();

backendE2eSuite('postgres').run();
