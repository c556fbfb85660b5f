/**
 * The version of the Regulated Payments Events API every event posting carries in apiVersion
 * (<major>.<minor>.<patch>), and the version of the engine's HTTP API documents. Defined here only.
 */
export const eventsApiVersion = '1.0.0';
