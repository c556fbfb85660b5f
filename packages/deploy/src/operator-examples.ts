import type { K8sObject } from './render.ts';

/**
 * What the operator creates in the namespace and the repository never holds (infra/k8s/README.md, "What
 * the operator provides"), with example values in the formats the README documents: for the checks that
 * resolve a pod's environment as a cluster would (the manifest tests, and the end-to-end test that starts
 * the engine's pod).
 */

/** An example value of every key of the Secret rp-secrets. */
const secretExamples: Readonly<Record<string, string>> = {
  'mongodb-uri': 'mongodb://rp:example-password@mongodb:27017/?replicaSet=rs0',
  'bank-signing-secrets': '{"250655":["whsec_example_0123456789abcdef"]}',
  'console-admin-client-secret': 'example-console-client-secret-0123456789',
  'scheme-clients': `[{"id":"example-clearing-house","tokenSha256":"${'ab'.repeat(32)}"}]`,
  'bank-oauth-clients': '{"250655":"example-client-secret-0123456789"}',
};

/** What the operator's own ConfigMaps read through envFrom hold. */
const configMapExamples: Readonly<Record<string, Readonly<Record<string, string>>>> = {
  'rp-bank-auth': {
    BANK_AUTH_ISSUER: 'https://idp.example.com/oauth2',
    BANK_AUTH_JWKS_URL: 'https://idp.example.com/oauth2/jwks',
  },
  'rp-admin-auth': {
    ADMIN_AUTH_ISSUER: 'https://sso.example.com/realms/operations',
    ADMIN_AUTH_JWKS_URL: 'https://sso.example.com/realms/operations/jwks',
  },
  'rp-console-auth': {
    ADMIN_AUTH_TOKEN_URL: 'https://sso.example.com/realms/operations/token',
    ADMIN_CLIENT_ID: 'rp-console',
  },
};

/** A ConfigMap object named `name` holding `data`. */
export function configMapObject(name: string, data: Readonly<Record<string, string>>): K8sObject {
  return { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data };
}

/** The Secret rp-secrets and the ConfigMaps above, as the operator would create them. */
export function operatorExampleObjects(): K8sObject[] {
  return [
    { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'rp-secrets' }, stringData: secretExamples },
    ...Object.entries(configMapExamples).map(([name, data]) => configMapObject(name, data)),
  ];
}
