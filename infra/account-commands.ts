import { type Command, InvalidArgumentError, Option } from 'commander';
import { integer } from './cli-args.ts';
import { type OperatorActions, parseExpiresIn } from './operator.ts';

/**
 * `earshot ingest-tokens|keys|orgs|projects`: account administration for operators. Each runs in
 * the running service through its admin socket, or directly on the state store (`withOperator`).
 */
export function registerAccountCommands(
  program: Command,
  withOperator: <T>(fn: (ops: OperatorActions) => Promise<T>) => Promise<T>,
): void {
  const ingestTokens = program
    .command('ingest-tokens')
    .description('tokens for HTTP batch ingest (POST /v1/ingest/batches); never API keys');

  ingestTokens
    .command('create')
    .description('mint an ingest token; the full token is printed once')
    .option('--name <name>', 'a label for the token (who sends with it)', 'default')
    .action(async (opts: { name: string }) => {
      const { token, record } = await withOperator((ops) => ops.createIngestToken({ name: opts.name }));
      console.error(`ingest token ${record.id} "${record.name}" (shown once, store it now):`);
      console.log(token);
    });

  ingestTokens
    .command('revoke')
    .description('revoke an ingest token; batches sent with it fail with 401 from then on')
    .argument('<tokenId>', 'token id (itk_…), as listed by `earshot ingest-tokens list`')
    .action(async (tokenId: string) => {
      const record = await withOperator((ops) => ops.revokeIngestToken({ tokenId }));
      console.log(`revoked ${record.id} (${record.display_prefix}…)`);
    });

  ingestTokens
    .command('list')
    .description('ingest tokens (prefixes only; full tokens are never stored)')
    .action(async () => {
      const list = await withOperator((ops) => ops.listIngestTokens({}));
      console.table(
        list.map((t) => ({
          id: t.id,
          name: t.name,
          prefix: `${t.display_prefix}…`,
          created: new Date(t.created_at).toISOString(),
          last_used: t.last_used_at ? new Date(t.last_used_at).toISOString() : '',
          revoked: t.revoked_at ? new Date(t.revoked_at).toISOString() : '',
        })),
      );
    });

  const keys = program
    .command('keys')
    .description('API keys (operators only; the API can never manage keys)');

  keys
    .command('create')
    .description('mint an API key for a project; the full key is printed once')
    .requiredOption('--project <project>', 'project id or slug')
    .option('--name <name>', 'a label for the key', 'default')
    .addOption(
      new Option(
        '--expires-in <duration>',
        'the key stops working after 30m, 12h, 90d, 8w, 1y… (default: never)',
      ).argParser(lifetime),
    )
    .action(async (opts: { project: string; name: string; expiresIn?: string }) => {
      const { key, record } = await withOperator((ops) =>
        ops.createKey({
          project: opts.project,
          name: opts.name,
          ...(opts.expiresIn ? { expiresIn: opts.expiresIn } : {}),
        }),
      );
      const expiry = record.expires_at ? `, expires ${isoOrEmpty(record.expires_at)}` : '';
      console.error(`key ${record.id} for project ${record.project_id}${expiry} (shown once, store it now):`);
      console.log(key);
    });

  keys
    .command('revoke')
    .description('revoke an API key; requests with it fail with 401 from then on')
    .argument('<keyId>', 'key id (key_…), as listed by `earshot keys list`')
    .action(async (keyId: string) => {
      const record = await withOperator((ops) => ops.revokeKey({ keyId }));
      console.log(`revoked ${record.id} (${record.display_prefix}…) of project ${record.project_id}`);
    });

  keys
    .command('list')
    .description("a project's keys (prefixes only; full keys are never stored) with their expiry")
    .requiredOption('--project <project>', 'project id or slug')
    .action(async (opts: { project: string }) => {
      const list = await withOperator((ops) => ops.listKeys({ project: opts.project }));
      const now = Date.now();
      console.table(
        list.map((k) => ({
          id: k.id,
          name: k.name,
          prefix: `${k.display_prefix}…`,
          created: isoOrEmpty(k.created_at),
          last_used: isoOrEmpty(k.last_used_at),
          revoked: isoOrEmpty(k.revoked_at),
          expires: k.expires_at
            ? `${isoOrEmpty(k.expires_at)}${new Date(k.expires_at).getTime() <= now ? ' (expired)' : ''}`
            : 'never',
        })),
      );
    });

  const orgs = program.command('orgs').description('organizations (operators)');
  orgs
    .command('create')
    .requiredOption('--name <name>')
    .option('--slug <slug>')
    .action(async (opts: { name: string; slug?: string }) => {
      const org = await withOperator((ops) => ops.createOrganization(opts));
      console.log(`${org.id}\t${org.slug}\t${org.name}`);
    });

  const projects = program.command('projects').description('projects and their plans (operators)');
  projects
    .command('create')
    .requiredOption('--org <organization>', 'organization id or slug')
    .requiredOption('--name <name>')
    .option('--plan <plan>', 'starter, growth, team, business or enterprise', 'starter')
    .option('--slug <slug>')
    .action(async (opts: { org: string; name: string; plan: string; slug?: string }) => {
      const p = await withOperator((ops) =>
        ops.createProject({ organization: opts.org, name: opts.name, plan: opts.plan, slug: opts.slug }),
      );
      console.log(`${p.id}\t${p.slug}\tplan ${p.plan_code}`);
    });
  projects
    .command('set-plan')
    .requiredOption('--project <project>')
    .requiredOption('--plan <plan>')
    .option('--alerts-packs <n>', 'Alerts Pack add-ons bought', integer)
    .action(async (opts: { project: string; plan: string; alertsPacks?: number }) => {
      const p = await withOperator((ops) => ops.setPlan(opts));
      console.log(`${p.id}\tplan ${p.plan_code}\talerts packs ${p.alerts_packs}`);
    });
  projects
    .command('grant')
    .description(
      'grant a project an entitlement by arrangement: archive (archive replay and bulk download of episodes)',
    )
    .argument('<entitlement>', 'archive')
    .requiredOption('--project <project>', 'project id or slug')
    .action(async (entitlement: string, opts: { project: string }) => {
      const r = await withOperator((ops) => ops.grantEntitlement({ project: opts.project, entitlement }));
      console.log(`${r.project.id}\tentitlements: ${r.entitlements.join(', ') || 'none'}`);
      console.error('API keys of the project see the change within 5 s.');
    });
  projects
    .command('revoke')
    .description('revoke an entitlement a project was granted')
    .argument('<entitlement>', 'archive')
    .requiredOption('--project <project>', 'project id or slug')
    .action(async (entitlement: string, opts: { project: string }) => {
      const r = await withOperator((ops) => ops.revokeEntitlement({ project: opts.project, entitlement }));
      console.log(`${r.project.id}\tentitlements: ${r.entitlements.join(', ') || 'none'}`);
      console.error('API keys of the project see the change within 5 s; open streams are not cut.');
    });
  projects
    .command('list')
    .requiredOption('--org <organization>')
    .action(async (opts: { org: string }) => {
      const list = await withOperator((ops) => ops.listProjects({ organization: opts.org }));
      console.table(list.map((p) => ({ id: p.id, slug: p.slug, name: p.name, plan: p.plan_code })));
    });
}

/** `--expires-in`: checked here for a prompt error, passed on as given. */
function lifetime(value: string): string {
  try {
    parseExpiresIn(value);
  } catch (err) {
    throw new InvalidArgumentError((err as Error).message);
  }
  return value;
}

const isoOrEmpty = (t: Date | string | null | undefined) => (t ? new Date(t).toISOString() : '');
