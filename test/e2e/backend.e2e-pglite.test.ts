/** The credential backend end to end on the embedded PGlite: see test/support/backend-e2e.ts. */
import { backendE2eSuite } from '../support/backend-e2e.js';

backendE2eSuite('pglite').run();
