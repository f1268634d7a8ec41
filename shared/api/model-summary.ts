// What the API says of a model (`models`, `show-model`, `add-model`): the CLI prints it in Juju's shape.
import { createHash } from 'node:crypto';
import type { Model } from '../domain/entities.js';
import { modelStatus } from '../domain/models.js';

/**
 * The controller's uuid, which Juju shows as every model's `controller-uuid`: drover keeps no
 * controller record to hold a random one, so it is derived (as a name-based, version 5 style
 * uuid) from what names the controller: its id and its table. Stable for the controller's life,
 * and different for two controllers.
 */
export function controllerUuid(controller: string, table: string): string {
  const hex = createHash('sha1').update(`drover-controller\0${controller}\0${table}`).digest('hex');
  const variant = ((parseInt(hex[16]!, 16) & 0x3) | 0x8).toString(16);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-5${hex.slice(13, 16)}-${variant}${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

export interface ModelSummary {
  name: string;
  uuid: string;
  type: 'iaas';
  life: string;
  status: 'available' | 'destroying';
  'default-series': string;
  'controller-uuid': string;
  /** destroy-model --force was asked: units in error are taken too. */
  forced?: true;
}

export const modelSummary = (model: Model, controller: string): ModelSummary => ({
  name: model.name,
  uuid: model.uuid ?? '',
  type: 'iaas',
  life: model.life,
  status: modelStatus(model.life),
  'default-series': model.defaultSeries,
  'controller-uuid': controller,
  ...(model.force ? { forced: true as const } : {}),
});
