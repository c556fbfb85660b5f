/**
 * JSON schemas for kubeconform, made offline from the upstream sources: the Kubernetes OpenAPI (v2)
 * document, CustomResourceDefinitions' openAPIV3Schema, and Strimzi's Java API model. The result has the
 * layout of kubeconform's default schema repository (`<kind><suffix>.json` in a
 * `v<version>-standalone-strict` folder) and its strict flavour: every object that lists its properties
 * refuses any other, so a misspelt or misplaced field fails validation instead of being dropped by the
 * API server.
 */

export type JsonSchema = { [key: string]: unknown };
/** File name (e.g. `deployment-apps-v1.json`) to standalone schema. */
export type SchemaFiles = Map<string, JsonSchema>;

export interface GroupVersionKind {
  readonly group: string;
  readonly version: string;
  readonly kind: string;
}

export interface Swagger {
  readonly definitions: Readonly<Record<string, JsonSchema>>;
}

export interface CustomResourceDefinition {
  readonly kind: string;
  readonly spec: {
    readonly group: string;
    readonly names: { readonly kind: string };
    readonly versions: readonly {
      readonly name: string;
      readonly served: boolean;
      readonly schema?: { readonly openAPIV3Schema: JsonSchema };
    }[];
  };
}

const objectMeta = 'io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta';
const quantity = 'io.k8s.apimachinery.pkg.api.resource.Quantity';

function isRecord(value: unknown): value is JsonSchema {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function mapValues(record: JsonSchema, fn: (value: JsonSchema) => JsonSchema): JsonSchema {
  return Object.fromEntries(
    Object.entries(record).map(([key, value]) => [key, isRecord(value) ? fn(value) : value]),
  );
}

/** apiVersion as written in manifests: `v1` for the core group, `group/version` otherwise. */
export function apiVersionOf(gvk: Pick<GroupVersionKind, 'group' | 'version'>): string {
  return gvk.group ? `${gvk.group}/${gvk.version}` : gvk.version;
}

/** The file kubeconform looks for: the kind, the first label of the group, the version (lower case). */
export function schemaFileName(kind: string, apiVersion: string): string {
  const [first = '', version] = apiVersion.split('/');
  const group = first.split('.')[0] ?? '';
  return `${kind.toLowerCase()}-${group.toLowerCase()}${version === undefined ? '' : `-${version.toLowerCase()}`}.json`;
}

/**
 * The strict form of a schema, walking only schema positions (a property may be *named* `properties`):
 * objects with listed properties refuse others (unless x-kubernetes-preserve-unknown-fields), int-or-string
 * becomes a oneOf, and OpenAPI's `nullable` becomes a null type.
 */
export function strictSchema(schema: JsonSchema): JsonSchema {
  if (schema.format === 'int-or-string' || schema['x-kubernetes-int-or-string'] === true) {
    return {
      ...(typeof schema.description === 'string' ? { description: schema.description } : {}),
      oneOf: [{ type: 'string' }, { type: 'integer' }],
    };
  }
  const out: JsonSchema = { ...schema };
  if (out.nullable === true) {
    if (typeof out.type === 'string') out.type = [out.type, 'null'];
    delete out.nullable;
  }
  if (isRecord(out.properties)) {
    out.properties = mapValues(out.properties, strictSchema);
    if (out.additionalProperties === undefined && out['x-kubernetes-preserve-unknown-fields'] !== true) {
      out.additionalProperties = false;
    }
  }
  if (isRecord(out.additionalProperties)) out.additionalProperties = strictSchema(out.additionalProperties);
  if (isRecord(out.patternProperties)) out.patternProperties = mapValues(out.patternProperties, strictSchema);
  if (isRecord(out.items)) out.items = strictSchema(out.items);
  else if (Array.isArray(out.items))
    out.items = out.items.map((item) => (isRecord(item) ? strictSchema(item) : item));
  for (const key of ['allOf', 'anyOf', 'oneOf'] as const) {
    const list = out[key];
    if (Array.isArray(list)) out[key] = list.map((item) => (isRecord(item) ? strictSchema(item) : item));
  }
  if (isRecord(out.not)) out.not = strictSchema(out.not);
  return out;
}

/** Every definition in strict form; a Quantity may be written as a number too (`cpu: 1`), as the API allows. */
export function strictDefinitions(swagger: Swagger): Record<string, JsonSchema> {
  const definitions = Object.fromEntries(
    Object.entries(swagger.definitions).map(([name, schema]) => [name, strictSchema(schema)]),
  );
  const q = definitions[quantity];
  if (q) {
    definitions[quantity] = {
      ...(typeof q.description === 'string' ? { description: q.description } : {}),
      oneOf: [{ type: 'string' }, { type: 'number' }],
    };
  }
  return definitions;
}

function collectRefs(node: unknown, found: Set<string>): void {
  if (Array.isArray(node)) {
    for (const item of node) collectRefs(item, found);
  } else if (isRecord(node)) {
    for (const [key, value] of Object.entries(node)) {
      if (key === '$ref' && typeof value === 'string') {
        const match = /^#\/definitions\/(.+)$/.exec(value);
        if (!match?.[1]) throw new Error(`unsupported $ref ${value}`);
        found.add(match[1]);
      } else collectRefs(value, found);
    }
  }
}

/** The schema with the definitions it refers to, directly or not, embedded: one file, no lookups. */
function standalone(root: JsonSchema, definitions: Readonly<Record<string, JsonSchema>>): JsonSchema {
  const needed = new Set<string>();
  const queue: unknown[] = [root];
  while (queue.length > 0) {
    const found = new Set<string>();
    collectRefs(queue.pop(), found);
    for (const name of found) {
      if (needed.has(name)) continue;
      const definition = definitions[name];
      if (!definition) throw new Error(`$ref to a missing definition ${name}`);
      needed.add(name);
      queue.push(definition);
    }
  }
  const embedded = Object.fromEntries([...needed].sort().map((name) => [name, definitions[name]]));
  return needed.size === 0 ? root : { ...root, definitions: embedded };
}

/** The root object of a kind: apiVersion and kind pinned to the values the schema is for. */
function withIdentity(
  schema: JsonSchema,
  apiVersions: readonly string[],
  kinds: readonly string[],
): JsonSchema {
  const properties = isRecord(schema.properties) ? schema.properties : {};
  return {
    ...schema,
    properties: {
      ...properties,
      apiVersion: {
        ...(isRecord(properties.apiVersion) ? properties.apiVersion : {}),
        type: 'string',
        enum: apiVersions,
      },
      kind: { ...(isRecord(properties.kind) ? properties.kind : {}), type: 'string', enum: kinds },
    },
    required: [
      ...new Set([
        ...(Array.isArray(schema.required) ? (schema.required as string[]) : []),
        'apiVersion',
        'kind',
      ]),
    ],
  };
}

/** One file per kind and version of the Kubernetes API (every definition with a group-version-kind). */
export function kubernetesSchemaFiles(swagger: Swagger): SchemaFiles {
  const definitions = strictDefinitions(swagger);
  const files: SchemaFiles = new Map();
  for (const [name, definition] of Object.entries(swagger.definitions)) {
    const gvks = definition['x-kubernetes-group-version-kind'] as GroupVersionKind[] | undefined;
    if (!Array.isArray(gvks) || gvks.length === 0) continue;
    const strict = definitions[name] as JsonSchema;
    const apiVersions = [...new Set(gvks.map(apiVersionOf))];
    const kinds = [...new Set(gvks.map((gvk) => gvk.kind))];
    const schema = standalone(withIdentity(strict, apiVersions, kinds), definitions);
    for (const gvk of gvks) files.set(schemaFileName(gvk.kind, apiVersionOf(gvk)), schema);
  }
  return files;
}

/**
 * The schema of a custom resource version from its openAPIV3Schema: strict, and with `metadata` checked
 * as the ObjectMeta of the Kubernetes API (CRDs leave it a bare object).
 */
export function customResourceSchema(
  openApiV3Schema: JsonSchema,
  apiVersion: string,
  kind: string,
  swagger: Swagger,
): JsonSchema {
  const definitions = strictDefinitions(swagger);
  const strict = strictSchema(openApiV3Schema);
  const properties = isRecord(strict.properties) ? strict.properties : {};
  const root = withIdentity(
    { ...strict, properties: { ...properties, metadata: { $ref: `#/definitions/${objectMeta}` } } },
    [apiVersion],
    [kind],
  );
  return standalone(root, definitions);
}

/** One file per served version of a CustomResourceDefinition. */
export function crdSchemaFiles(crd: CustomResourceDefinition, swagger: Swagger): SchemaFiles {
  if (crd.kind !== 'CustomResourceDefinition')
    throw new Error(`expected a CustomResourceDefinition, got ${crd.kind}`);
  const files: SchemaFiles = new Map();
  for (const version of crd.spec.versions) {
    if (!version.served || !version.schema) continue;
    const apiVersion = `${crd.spec.group}/${version.name}`;
    const kind = crd.spec.names.kind;
    files.set(
      schemaFileName(kind, apiVersion),
      customResourceSchema(version.schema.openAPIV3Schema, apiVersion, kind, swagger),
    );
  }
  if (files.size === 0) throw new Error(`${crd.spec.names.kind}: no served version with a schema`);
  return files;
}

export interface StrimziCrd {
  readonly group: string;
  readonly kind: string;
  readonly versions: readonly { readonly name: string; readonly served: boolean }[];
}

/** The @Crd annotation of a Strimzi custom resource class, from `javap -v`. */
export function parseStrimziCrd(javap: string): StrimziCrd {
  const kind = /Crd\$Spec\$Names\(\s*kind="([^"]+)"/.exec(javap)?.[1];
  const group = /annotations\.Crd\$Spec\$Names\([\s\S]*?\)\s*group="([^"]+)"/.exec(javap)?.[1];
  const versions = [...javap.matchAll(/Crd\$Spec\$Version\(\s*name="([^"]+)"\s*served=(true|false)/g)].map(
    (match) => ({ name: match[1] as string, served: match[2] === 'true' }),
  );
  if (!kind || !group || versions.length === 0)
    throw new Error('no @Crd annotation with names, group and versions');
  return { group, kind, versions };
}

function javaTypeSchema(javaType: string, property: string): JsonSchema {
  switch (javaType) {
    case 'java.lang.String':
      return { type: 'string' };
    case 'int':
    case 'long':
    case 'short':
    case 'java.lang.Integer':
    case 'java.lang.Long':
    case 'java.lang.Short':
      return { type: 'integer' };
    case 'boolean':
    case 'java.lang.Boolean':
      return { type: 'boolean' };
    case 'double':
    case 'float':
    case 'java.lang.Double':
    case 'java.lang.Float':
      return { type: 'number' };
    case 'java.util.Map<java.lang.String, java.lang.Object>':
      return { type: 'object', 'x-kubernetes-preserve-unknown-fields': true };
    case 'java.util.Map<java.lang.String, java.lang.String>':
      return { type: 'object', additionalProperties: { type: 'string' } };
    case 'java.util.List<java.lang.String>':
      return { type: 'array', items: { type: 'string' } };
    default:
      throw new Error(`${property}: unsupported Java type ${javaType} (teach javaTypeSchema)`);
  }
}

/**
 * The JSON schema of a flat Strimzi spec class (such as KafkaTopicSpec), from `javap -v`: the properties
 * Jackson writes (@JsonPropertyOrder), each typed by its getter, with the bounds and descriptions of
 * Strimzi's @Minimum, @Maximum and @Description — what Strimzi's CRD generator reads too.
 */
export function strimziSpecSchema(javap: string): JsonSchema {
  // The class-level order is printed after every member; members print their own annotations first.
  const orders = [...javap.matchAll(/JsonPropertyOrder\(\s*value=\[([^\]]*)\]/g)];
  const order = orders.at(-1)?.[1];
  if (order === undefined) throw new Error('no @JsonPropertyOrder on the spec class');
  const names = [...order.matchAll(/"([^"]+)"/g)].map((match) => match[1] as string);
  const members = javap.split(/\n[ \t]*\n/);
  const properties: Record<string, JsonSchema> = {};
  for (const name of names) {
    const getter = `${name[0]?.toUpperCase()}${name.slice(1)}`;
    const header = new RegExp(`^\\s*public (.+) (?:get|is)${getter}\\(\\);\\s*$`, 'm');
    const member = members.find((text) => header.test(text));
    const javaType = member ? header.exec(member)?.[1] : undefined;
    if (!member || !javaType) throw new Error(`no getter for the property ${name}`);
    const schema = javaTypeSchema(javaType, name);
    const minimum = /annotations\.Minimum\(\s*value=(-?\d+)/.exec(member)?.[1];
    const maximum = /annotations\.Maximum\(\s*value=(-?\d+)/.exec(member)?.[1];
    const description = /annotations\.Description\(\s*value="((?:[^"\\]|\\.)*)"/.exec(member)?.[1];
    properties[name] = {
      ...schema,
      ...(minimum === undefined ? {} : { minimum: Number(minimum) }),
      ...(maximum === undefined ? {} : { maximum: Number(maximum) }),
      ...(description === undefined ? {} : { description: description.replace(/\\(.)/g, '$1') }),
    };
  }
  return { type: 'object', properties };
}

/** Schemas of a Strimzi custom resource (KafkaTopic) for the given versions, from its classes' `javap -v`. */
export function strimziSchemaFiles(
  resourceJavap: string,
  specJavap: string,
  versions: readonly string[],
  swagger: Swagger,
): SchemaFiles {
  const crd = parseStrimziCrd(resourceJavap);
  const spec = strimziSpecSchema(specJavap);
  const files: SchemaFiles = new Map();
  for (const version of versions) {
    if (!crd.versions.some((v) => v.name === version && v.served)) {
      throw new Error(
        `${crd.kind} ${version} is not served by this Strimzi (served: ${crd.versions
          .filter((v) => v.served)
          .map((v) => v.name)
          .join(', ')})`,
      );
    }
    const apiVersion = `${crd.group}/${version}`;
    const openApiV3Schema: JsonSchema = {
      type: 'object',
      properties: {
        apiVersion: { type: 'string' },
        kind: { type: 'string' },
        metadata: { type: 'object' },
        spec,
        status: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
      },
    };
    files.set(
      schemaFileName(crd.kind, apiVersion),
      customResourceSchema(openApiV3Schema, apiVersion, crd.kind, swagger),
    );
  }
  return files;
}
