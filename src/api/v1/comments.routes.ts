import type { V1App } from './plugin.js';

export async function commentsRoutes(_app: V1App) {
  // Routes of this resource are added here.
}
