/** The endpoints handed from the global setup to test workers, as JSON. */
export {};

declare module 'vitest' {
  export interface ProvidedContext {
    rpInfra: string;
  }
}
