// `npx cdk synth` / `npx cdk deploy` run this (cdk.json: "app": "npx tsx infra/app.ts").
import { createDroverApp } from './drover-app.js';

createDroverApp().app.synth();
