// The layering, checked on every `npm test` (test/unit/layering.test.ts runs this):
//   shared/domain   pure: itself, Node's built-ins and pure libraries only
//   shared/state    engine/ (store, commit, cache, reads) < queries/ (reads for callers)
//                   < operations/ (read → plan → commit)
//   shared/*        the parts every entry point uses; never an entry point
//   functions/ agent/ cli/   entry points: Lambda handlers, the agents, the CLI; none uses another
//                            (agents and the CLI reach the controller over HTTP only)
//   embedded/ infra/         the local controller and the CDK app, which put the entry points together
//   test/ bench/ compat/      anything (compat/: harnesses that run other projects' suites against drover)
// Docs: docs/architecture.md, "Layers".
/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'no-cycle',
      severity: 'error',
      comment: 'A cycle makes an import order matter and a layer impossible to read alone.',
      from: {},
      to: { circular: true },
    },
    {
      name: 'domain-is-pure',
      severity: 'error',
      comment: 'shared/domain decides; it must not reach a store, a queue, a process or the network.',
      from: { path: '^shared/domain/' },
      to: {
        pathNot: ['^shared/domain/', '^node_modules/(yaml|zod|ajv)/'],
        dependencyTypesNot: ['core'],
      },
    },
    {
      name: 'domain-uses-no-node-io',
      severity: 'error',
      comment: 'Node built-ins that do I/O have no place in pure decisions.',
      from: { path: '^shared/domain/' },
      to: { dependencyTypes: ['core'], path: '^(node:)?(fs|child_process|net|http|https|dgram|dns|worker_threads|cluster)(/|$)' },
    },
    {
      name: 'state-engine-knows-no-operation',
      severity: 'error',
      comment: 'shared/state/engine is how any operation or query runs; it never names one.',
      from: { path: '^shared/state/engine/' },
      to: { path: '^shared/state/(operations|queries)/' },
    },
    {
      name: 'state-queries-only-read',
      severity: 'error',
      comment: 'A query reads; it never calls an operation, which would make a read write.',
      from: { path: '^shared/state/queries/' },
      to: { path: '^shared/state/operations/' },
    },
    {
      name: 'shared-imported-as-#shared',
      severity: 'error',
      comment: 'One way to name the shared layer from outside it: #shared/... (package.json "imports"), never a relative path.',
      from: { pathNot: '^shared/' },
      to: { path: '^shared/', dependencyTypesNot: ['aliased-subpath-import'] },
    },
    {
      name: 'shared-imports-itself-relatively',
      severity: 'error',
      comment: 'Inside shared/, a module names its neighbours by relative path, as any package does.',
      from: { path: '^shared/' },
      to: { path: '^shared/', dependencyTypes: ['aliased-subpath-import'] },
    },
    {
      name: 'shared-is-below-entry-points',
      severity: 'error',
      comment: 'shared/ is what the entry points are made of; it never imports one of them.',
      from: { path: '^shared/' },
      to: { path: '^(functions|agent|cli|embedded|infra|test|bench|compat)/' },
    },
    {
      name: 'functions-stand-alone',
      severity: 'error',
      comment: 'A Lambda bundle holds functions/ and shared/ only: no local controller, agent, CLI or CDK code.',
      from: { path: '^functions/' },
      to: { path: '^(agent|cli|embedded|infra|test|bench|compat)/' },
    },
    {
      name: 'agent-stand-alone',
      severity: 'error',
      comment: 'The agent reaches the controller through the agent API only.',
      from: { path: '^agent/' },
      to: { path: '^(functions|cli|embedded|infra|test|bench|compat)/' },
    },
    {
      name: 'cli-stand-alone',
      severity: 'error',
      comment: 'The CLI reaches the controller through the user API only.',
      from: { path: '^cli/' },
      to: { path: '^(functions|agent|embedded|infra|test|bench|compat)/' },
    },
    {
      name: 'embedded-and-infra-apart',
      severity: 'error',
      comment: 'The local controller and the CDK app assemble the same parts; neither builds on the other.',
      from: { path: '^(embedded|infra)/' },
      to: { path: '^(embedded|infra|test|bench|compat)/', pathNot: '^$1/' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '^(node_modules|cdk\\.out|\\.drover)/' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { exportsFields: ['exports'], conditionNames: ['import', 'require', 'node', 'default'] },
  },
};
