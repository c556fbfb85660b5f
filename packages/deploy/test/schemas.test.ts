import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { kubeconform, schemaLocation } from '../src/render.ts';
import {
  parseStrimziCrd,
  type Swagger,
  schemaFileName,
  strictSchema,
  strimziSchemaFiles,
  strimziSpecSchema,
} from '../src/schemas.ts';
import { at, getTools } from './helpers.ts';

describe('schema conversion', () => {
  it('names files as kubeconform looks them up', () => {
    expect(schemaFileName('Deployment', 'apps/v1')).toBe('deployment-apps-v1.json');
    expect(schemaFileName('Service', 'v1')).toBe('service-v1.json');
    expect(schemaFileName('HorizontalPodAutoscaler', 'autoscaling/v2')).toBe(
      'horizontalpodautoscaler-autoscaling-v2.json',
    );
    expect(schemaFileName('KafkaTopic', 'kafka.strimzi.io/v1beta2')).toBe('kafkatopic-kafka-v1beta2.json');
    expect(schemaFileName('ServiceMonitor', 'monitoring.coreos.com/v1')).toBe(
      'servicemonitor-monitoring-v1.json',
    );
  });

  it('closes objects with listed properties, in schema positions only', () => {
    const schema = strictSchema({
      type: 'object',
      properties: {
        // A field *named* properties (as in JSONSchemaProps) is a field, not a keyword.
        properties: { type: 'object', additionalProperties: { type: 'string' } },
        nested: { type: 'object', properties: { a: { type: 'string' } } },
        open: {
          type: 'object',
          properties: { b: { type: 'string' } },
          'x-kubernetes-preserve-unknown-fields': true,
        },
        port: { format: 'int-or-string', type: 'string', description: 'p' },
        maybe: { type: 'string', nullable: true },
        list: { type: 'array', items: { type: 'object', properties: { c: { type: 'integer' } } } },
      },
    });
    expect(schema.additionalProperties).toBe(false);
    const properties = schema.properties as Record<string, Record<string, unknown>>;
    expect(properties.properties).toEqual({ type: 'object', additionalProperties: { type: 'string' } });
    expect(properties.nested?.additionalProperties).toBe(false);
    expect(properties.open?.additionalProperties).toBeUndefined();
    expect(properties.port).toEqual({ description: 'p', oneOf: [{ type: 'string' }, { type: 'integer' }] });
    expect(properties.maybe).toEqual({ type: ['string', 'null'] });
    expect(at(properties.list, 'items', 'additionalProperties')).toBe(false);
  });

  it("derives a Strimzi spec schema from javap's view of the class", () => {
    const spec = strimziSpecSchema(javapSpec);
    expect(spec).toEqual({
      type: 'object',
      properties: {
        topicName: { type: 'string', description: 'The name "of" the topic.' },
        partitions: { type: 'integer', minimum: 1 },
        config: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
      },
    });
    expect(() => strimziSpecSchema(javapSpec.replace('java.lang.Integer', 'java.util.Set<Foo>'))).toThrow(
      /unsupported Java type/,
    );
    expect(parseStrimziCrd(javapResource)).toEqual({
      group: 'kafka.strimzi.io',
      kind: 'KafkaTopic',
      versions: [
        { name: 'v1beta2', served: true },
        { name: 'v1alpha1', served: false },
      ],
    });
    const swagger: Swagger = {
      definitions: {
        'io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta': {
          type: 'object',
          properties: { name: { type: 'string' } },
        },
      },
    };
    expect([...strimziSchemaFiles(javapResource, javapSpec, ['v1beta2'], swagger).keys()]).toEqual([
      'kafkatopic-kafka-v1beta2.json',
    ]);
    expect(() => strimziSchemaFiles(javapResource, javapSpec, ['v1alpha1'], swagger)).toThrow(/not served/);
  });
});

describe('the offline schemas', () => {
  it('cover the kinds the manifests use, generated from the pinned sources', async () => {
    const tools = await getTools();
    const folder = join(tools.schemaDir, `v${tools.kubernetesVersion}-standalone-strict`);
    const files = readdirSync(folder);
    expect(files.length).toBeGreaterThan(200);
    for (const file of [
      'deployment-apps-v1.json',
      'service-v1.json',
      'configmap-v1.json',
      'namespace-v1.json',
      'serviceaccount-v1.json',
      'poddisruptionbudget-policy-v1.json',
      'horizontalpodautoscaler-autoscaling-v2.json',
      'kafkatopic-kafka-v1beta2.json',
      'servicemonitor-monitoring-v1.json',
    ]) {
      expect(existsSync(join(folder, file)), file).toBe(true);
    }
    const topic = JSON.parse(readFileSync(join(folder, 'kafkatopic-kafka-v1beta2.json'), 'utf8'));
    // From Strimzi's API model: the KafkaTopic spec's properties and its bounds.
    expect(Object.keys(topic.properties.spec.properties).sort()).toEqual([
      'config',
      'partitions',
      'replicas',
      'topicName',
    ]);
    expect(topic.properties.spec.properties.replicas).toMatchObject({ minimum: 1, maximum: 32767 });
    expect(schemaLocation(tools)).toContain('{{ .ResourceKind }}{{ .KindSuffix }}.json');
  });

  it('make kubeconform -strict refuse what the API server would drop or refuse', async () => {
    const tools = await getTools();
    const cases: [string, RegExp][] = [
      [deployment.replace('livenessProbe', 'livenesProbe'), /livenesProbe/],
      [deployment.replace('memory: 256Mi', 'memory: [256]'), /memory/],
      [deployment.replace('apps/v1', 'apps/v2'), /could not find schema|apps\/v2/],
      [deployment.replace('  name: a\n', '  name: a\n  name: b\n'), /already set|duplicate|mapping key/i],
      [topic.replace('partitions: 12', 'partitions: 0'), /partitions/],
      [topic.replace('replicas: 3', 'replicas: 3\n  replica: 3'), /replica/],
      [topic.replace('  labels:', '  label:'), /label/],
      [monitor.replace('path: /metrics', 'path: /metrics\n      intervall: 30s'), /intervall/],
      [`apiVersion: example.com/v1\nkind: Widget\nmetadata:\n  name: w\n`, /could not find schema/],
    ];
    for (const [yaml, problem] of cases) {
      const report = await kubeconform(tools, yaml);
      expect(report.code, yaml).not.toBe(0);
      const messages = report.resources
        .map((r) => `${r.msg} ${(r.validationErrors ?? []).map((e) => `${e.path} ${e.msg}`).join(' ')}`)
        .join('\n');
      expect(messages, yaml).toMatch(problem);
    }
    const good = await kubeconform(tools, [deployment, topic, monitor].join('---\n'));
    expect(good.code).toBe(0);
    expect(good.summary).toEqual({ valid: 3, invalid: 0, errors: 0, skipped: 0 });
  });
});

const deployment = `apiVersion: apps/v1
kind: Deployment
metadata:
  name: a
spec:
  selector:
    matchLabels: {app: a}
  template:
    metadata:
      labels: {app: a}
    spec:
      containers:
        - name: a
          image: x:1
          ports: [{name: http, containerPort: 8080}]
          resources: {requests: {cpu: 1, memory: 256Mi}}
          livenessProbe: {httpGet: {path: /health/live, port: http}}
`;

const topic = `apiVersion: kafka.strimzi.io/v1beta2
kind: KafkaTopic
metadata:
  name: t
  labels: {strimzi.io/cluster: c}
spec:
  partitions: 12
  replicas: 3
  config: {retention.ms: 1000, cleanup.policy: delete}
`;

const monitor = `apiVersion: monitoring.coreos.com/v1
kind: ServiceMonitor
metadata:
  name: m
spec:
  selector: {matchLabels: {app: a}}
  endpoints:
    - port: http
      path: /metrics
`;

// Excerpts of `javap -v` output, in its layout: members separated by blank lines.
const javapSpec = `public class io.strimzi.api.kafka.model.topic.KafkaTopicSpec extends io.strimzi.api.kafka.model.common.Spec
  public java.lang.String getTopicName();
    descriptor: ()Ljava/lang/String;
    RuntimeVisibleAnnotations:
      0: #80(#81=s#82)
        io.strimzi.crdgenerator.annotations.Description(
          value="The name \\"of\\" the topic."
        )

  public java.lang.Integer getPartitions();
    descriptor: ()Ljava/lang/Integer;
    RuntimeVisibleAnnotations:
      1: #86(#81=I#87)
        io.strimzi.crdgenerator.annotations.Minimum(
          value=1
        )

  public void setPartitions(java.lang.Integer);
    descriptor: (Ljava/lang/Integer;)V

  public java.util.Map<java.lang.String, java.lang.Object> getConfig();
    descriptor: ()Ljava/util/Map;

RuntimeVisibleAnnotations:
  1: #125(#81=[s#20,s#24,s#16])
    com.fasterxml.jackson.annotation.JsonPropertyOrder(
      value=["topicName","partitions","config"]
    )
`;

const javapResource = `RuntimeVisibleAnnotations:
  1: #182(#13=@#183)
    io.strimzi.crdgenerator.annotations.Crd(
      spec=@io.strimzi.crdgenerator.annotations.Crd$Spec(
        names=@io.strimzi.crdgenerator.annotations.Crd$Spec$Names(
          kind="KafkaTopic"
          plural="kafkatopics"
          shortNames=["kt"]
        )
        group="kafka.strimzi.io"
        scope="Namespaced"
        versions=[@io.strimzi.crdgenerator.annotations.Crd$Spec$Version(
          name="v1beta2"
          served=true
          storage=true
        ),@io.strimzi.crdgenerator.annotations.Crd$Spec$Version(
          name="v1alpha1"
          served=false
          storage=false
        )]
      )
    )
`;
