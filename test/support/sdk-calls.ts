// What AWS requests a piece of code can send, read from the code itself: its entry is bundled by
// esbuild as the Lambda bundles are (tree-shaken, the AWS SDK left out so its imports stay
// visible), and every SDK command the bundled code still refers to is one it may send. Requests
// the code signs by hand (presigned S3 URLs, SigV4 to the API) have no command: the modules that
// sign them count instead, when any of their code is in the bundle. A command that is imported
// but only by code tree-shaking removed does not count; one a shared module keeps for a path
// this entry never takes does, and the role's list in test/infra/role-requests.ts says why.
import { buildSync } from 'esbuild';
import { REPO_ROOT } from '../../infra/functions.js';

/**
 * The functions that sign requests without an SDK command (shared/aws/presigned-s3-url.ts,
 * shared/aws/sign-request.ts), by the name a role's list gives their requests; esbuild may
 * suffix a name with a digit.
 */
export const SIGNERS: Record<string, RegExp> = {
  presignS3Url: /\bfunction presignedS3(Url|Put)\d*\(/,
  signRequest: /\bfunction signRequest\d*\(/,
};

/** The entry module (relative to the repository root) and, for a function, the export Lambda calls. */
export interface CodeEntry {
  entry: string;
  handler?: string;
}

/** The SDK commands (by class name, e.g. `QueryCommand`) and hand-signed requests the code may send. */
export function sdkCallsOf(code: CodeEntry): string[] {
  const contents = code.handler ? `export { ${code.handler} } from './${code.entry}';` : `import './${code.entry}';`;
  const result = buildSync({
    stdin: { contents, resolveDir: REPO_ROOT, loader: 'ts', sourcefile: 'entry.ts' },
    bundle: true,
    write: false,
    platform: 'node',
    format: 'esm',
    target: 'node22',
    mainFields: ['module', 'main'],
    external: ['@aws-sdk/*'],
    logLevel: 'silent',
  });
  const text = result.outputFiles[0]!.text;
  const imports = /import\s*\{([^}]*)\}\s*from\s*"@aws-sdk\/[^"]+";?/g;
  const body = text.replace(imports, '');
  const calls = new Set<string>();
  for (const match of text.matchAll(imports))
    for (const name of match[1]!.split(',')) {
      const [imported, local] = name.trim().split(/\s+as\s+/) as [string, string | undefined];
      if (/Command$/.test(imported) && new RegExp(`\\b${local ?? imported}\\b`).test(body)) calls.add(imported);
    }
  for (const [name, signer] of Object.entries(SIGNERS)) if (signer.test(body)) calls.add(name);
  return [...calls].sort();
}
