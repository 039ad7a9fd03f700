/** kill -9 during concurrent stores, master key rotation and master key errors on pglite: see test/support/backend-durability.ts. */
import { backendDurabilitySuite } from '../support/backend-durability.js';

backendDurabilitySuite('pglite').run();
