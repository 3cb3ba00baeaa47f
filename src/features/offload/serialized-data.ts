/**
 * A handler's `data` already serialized (a worker thread built it, off the event loop): v1 sends it in the
 * envelope as it is (api/v1/operation-route.ts) instead of serializing an object copied across threads.
 */
export class SerializedData {
  constructor(readonly text: string) {}
}
