// What the API says of a model (`models`, `show-model`, `add-model`): the CLI prints it in Juju's shape.
import type { Model } from '../domain/entities.js';
import { modelStatus } from '../domain/models.js';

export interface ModelSummary {
  name: string;
  uuid: string;
  type: 'iaas';
  life: string;
  status: 'available' | 'destroying';
  'default-series': string;
  /** destroy-model --force was asked: units in error are taken too. */
  forced?: true;
}

export const modelSummary = (model: Model): ModelSummary => ({
  name: model.name,
  uuid: model.uuid ?? '',
  type: 'iaas',
  life: model.life,
  status: modelStatus(model.life),
  'default-series': model.defaultSeries,
  ...(model.force ? { forced: true as const } : {}),
});
