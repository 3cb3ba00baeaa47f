import type { V1App } from './plugin.js';

export async function attachmentsRoutes(_app: V1App) {
  // Routes of this resource are added here.
}
