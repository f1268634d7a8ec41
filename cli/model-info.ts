// A model as Juju 3.6's `show-model` and `models --format json|yaml` write it
// (https://github.com/juju/juju/blob/3.6/cmd/juju/common/modelinfo.go, cmd/juju/model/show.go,
// cmd/juju/controller/listmodels.go): jubilant's ModelInfo reads these keys.
import type { ModelSummary } from '#shared/api/model-summary.js';
import { JUJU_VERSION } from '#shared/domain/juju-version.js';
import type { ControllerEntry } from './config.js';

/** drover's one user, as Juju's bootstrap user. */
export const MODEL_OWNER = 'admin';

/** Juju's cloud, region and provider type: the local controller's or AWS's. */
export function cloudOf(controller: ControllerEntry): { cloud: string; region: string; type: string } {
  if (controller.type === 'aws') return { cloud: 'aws', region: controller.region ?? '', type: 'ec2' };
  return { cloud: 'local', region: 'local', type: 'local' };
}

/** The keys `show-model` and `models` share. */
function common(m: ModelSummary, controllerName: string, controller: ControllerEntry) {
  const { cloud, region, type } = cloudOf(controller);
  return {
    name: `${MODEL_OWNER}/${m.name}`,
    'short-name': m.name,
    'model-uuid': m.uuid,
    'model-type': m.type,
    'controller-uuid': m['controller-uuid'],
    'controller-name': controllerName,
    // drover has no controller model: every model is a workload model.
    'is-controller': false,
    owner: MODEL_OWNER,
    cloud,
    ...(region ? { region } : {}),
    type,
    life: m.life,
    status: { current: m.status },
  };
}

/** `show-model`: Juju's ModelInfo. */
export function shownModel(m: ModelSummary, controllerName: string, controller: ControllerEntry) {
  return {
    ...common(m, controllerName, controller),
    users: { [MODEL_OWNER]: { 'display-name': MODEL_OWNER, access: 'admin', 'last-connection': 'just now' } },
    'agent-version': JUJU_VERSION,
    'supported-features': [{ name: 'juju', description: 'the version of Juju used by the model', version: JUJU_VERSION }],
  };
}

/** One entry of `models`: Juju's ModelSummary, with the user's access. */
export function listedModel(m: ModelSummary, controllerName: string, controller: ControllerEntry) {
  return {
    ...common(m, controllerName, controller),
    access: 'admin',
    'last-connection': 'just now',
    'agent-version': JUJU_VERSION,
  };
}
