import type { V1App } from './plugin.js';

export async function answersRoutes(_app: V1App) {
  // Routes of this resource are added here.
}
