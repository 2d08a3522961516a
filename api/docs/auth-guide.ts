import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const TEXT = fs.readFileSync(path.join(path.dirname(fileURLToPath(import.meta.url)), 'auth.md'), 'utf8');

/** `/auth.md`, as both hosts serve it: the guide with this deployment's addresses filled in. */
export function authGuide(addresses: { publicUrl: string; dashboardUrl: string; mcpUrl: string }): string {
  return TEXT.replaceAll('{base_url}', addresses.publicUrl.replace(/\/$/, ''))
    .replaceAll('{dashboard_url}', addresses.dashboardUrl.replace(/\/$/, ''))
    .replaceAll('{mcp_url}', addresses.mcpUrl);
}
