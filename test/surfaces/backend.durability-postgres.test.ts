/** kill -9 during concurrent stores, master key rotation and master key errors on postgres: see test/support/backend-durability.ts. */
import { backendDurabilitySuite } from '../support/backend-durability.js';

backendDurabilitySuite('postgres').run();
