/**
 * Renders an overlay with the pinned kustomize and validates it with kubeconform against the offline
 * schemas, as the tests do; prints the manifests on stdout (pipe them to `kubectl apply -f -`).
 *
 *   npm run render -w @rp/deploy -- production      (or demo, or a path to a kustomization folder)
 */
import { isAbsolute, resolve } from 'node:path';
import { type Overlay, overlayDir, overlays } from '../src/paths.ts';
import { describeProblems, kubeconform, kustomizeBuild } from '../src/render.ts';
import { ensureTools } from '../src/tools.ts';

const target = process.argv[2] ?? 'production';
const dir = (overlays as readonly string[]).includes(target)
  ? overlayDir(target as Overlay)
  : isAbsolute(target)
    ? target
    : resolve(process.env.INIT_CWD ?? process.cwd(), target);

const tools = await ensureTools((line) => console.error(`render: ${line}`));
const yamlText = await kustomizeBuild(tools, dir);
const report = await kubeconform(tools, yamlText);
if (report.code !== 0) {
  console.error(describeProblems(report).join('\n'));
  console.error(`render: ${dir} does not validate (kubeconform exit ${report.code})`);
  process.exit(1);
}
process.stdout.write(yamlText);
console.error(`render: ${report.summary.valid} objects valid against Kubernetes ${tools.kubernetesVersion}`);
