/** The whole route table, in match order. */
import type { RouteDef } from '../router.js';
import { authRoutes } from './auth.js';
import { catalogueRoutes } from './catalogue.js';
import { clusterRoutes } from './clusters.js';
import { deploymentRoutes } from './deployments.js';
import { instanceRoutes } from './instances.js';
import { keyScriptRoutes } from './keys-scripts.js';
import { secretRoutes } from './secrets.js';
import { volumeRoutes } from './volumes.js';

export const ROUTES: RouteDef[] = [
  ...authRoutes,
  ...catalogueRoutes,
  ...instanceRoutes,
  ...volumeRoutes,
  ...clusterRoutes,
  ...keyScriptRoutes,
  ...deploymentRoutes,
  ...secretRoutes,
];
