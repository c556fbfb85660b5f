/**
 * Writes infra/k8s/base/dashboards/regulated-payments.json, the Grafana dashboard of src/dashboard.ts.
 *
 *   node --conditions=source scripts/dashboard.ts          write it if it changed
 *   node --conditions=source scripts/dashboard.ts --check  exit 1 if it is stale, write nothing
 *   ... --file <path>                                      another file than the committed one
 */
import { renderDashboard } from '../src/dashboard.ts';
import { writeGenerated } from '../src/generated-file.ts';
import { dashboardFile } from '../src/paths.ts';

writeGenerated(dashboardFile, renderDashboard(), process.argv.slice(2));
