/** The credential backend end to end on a real PostgreSQL server (SKIP when the package is missing): see test/support/backend-e2e.ts. */
import { backendE2eSuite } from '../support/backend-e2e.js';

backendE2eSuite('postgres').run();
