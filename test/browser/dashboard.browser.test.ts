import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { type Browser, chromium, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { linkIn, nextMail } from '../support/dashboard.ts';
import { startReceiver } from '../support/receiver.ts';
import { spawnEarshot } from '../support/service-process.ts';
import { startSmtp } from '../support/smtp.ts';
import { tempDir } from '../support/temp-dir.ts';
import { waitFor } from '../support/wait-for.ts';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
/** Debian's Chromium; `.ci/run` installs it when it is missing. */
const CHROMIUM = process.env.EARSHOT_CHROMIUM ?? '/usr/bin/chromium';
const EMAIL = 'ada@newsroom.example';
const PASSWORD = 'a long and private passphrase';

/** Runs one `earshot` command to completion, as an operator would. */
function earshot(args: string[], env: Record<string, string>): Promise<{ code: number | null; out: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [path.join(root, 'bin/earshot.js'), ...args], {
      cwd: root,
      env: { ...process.env, LOG_LEVEL: 'warn', ...env },
    });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (out += d.toString()));
    child.on('exit', (code) => resolve({ code, out }));
  });
}

/**
 * The dashboard in a real browser (Chromium through playwright-core) against the demo service in
 * its own process, mail captured by a local SMTP server and webhooks by a local receiver, all on
 * 127.0.0.1: sign up → verification mail → verify → sign in → create a project → mint a key →
 * the API answers it → a webhook connection and an alert made in the forms → revoke the key →
 * the API refuses it. Every page visited is saved as a screenshot in a folder the test prints.
 * Form fields are found by their labels, as a screen reader finds them.
 */
describe('dashboard in a browser', () => {
  const tmp = tempDir('earshot-browser-');
  const shots =
    process.env.EARSHOT_SCREENSHOTS_DIR ??
    fs.mkdtempSync(path.join(os.tmpdir(), 'earshot-dashboard-screenshots-'));
  let smtp: Awaited<ReturnType<typeof startSmtp>>;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  let svc: Awaited<ReturnType<typeof spawnEarshot>>;
  let browser: Browser;
  let env: Record<string, string>;
  let shot = 0;

  beforeAll(async () => {
    expect(fs.existsSync(CHROMIUM), `${CHROMIUM} (apt-get install -y chromium)`).toBe(true);
    fs.mkdirSync(shots, { recursive: true });
    smtp = await startSmtp();
    receiver = await startReceiver(() => ({ status: 200 }));
    env = { EARSHOT_DATA_DIR: path.join(tmp.dir, 'data') };
    svc = await spawnEarshot(['start'], {
      ...env,
      EARSHOT_DEMO: 'on',
      SMTP_URL: smtp.url,
      EARSHOT_OUTBOUND_ALLOWLIST: '127.0.0.1/32',
      LOG_LEVEL: 'warn',
    });
    await waitFor(async () => (await fetch(`${svc.url}/readyz`).catch(() => undefined))?.status === 200, {
      timeoutMs: 150_000,
      stepMs: 500,
      what: `/readyz 200 (${svc.output().slice(-2000)})`,
    });
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'],
    });
  }, 200_000);

  afterAll(async () => {
    await browser?.close();
    await svc?.stop();
    await receiver?.close();
    await smtp?.close();
    tmp.remove();
    console.log(`dashboard screenshots: ${shots}`);
  });

  async function capture(page: Page, name: string) {
    shot += 1;
    await page.screenshot({
      path: path.join(shots, `${String(shot).padStart(2, '0')}-${name}.png`),
      fullPage: true,
    });
  }

  it('walks from sign-up to a revoked key', async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    page.on('dialog', (dialog) => void dialog.accept());
    const api = (key: string) =>
      fetch(`${svc.url}/v1/podcasts?limit=3`, { headers: { 'x-api-key': key } }).then((r) => r.status);

    // Sign up.
    await page.goto(`${svc.url}/dashboard/sign-up`);
    await capture(page, 'sign-up');
    await page.getByLabel('Email address').fill(EMAIL);
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByLabel('Organization name').fill('Newsroom Labs');
    await page.getByRole('button', { name: 'Create account' }).click();
    await expect.poll(() => page.locator('h1').textContent()).toBe('Check your inbox');
    await capture(page, 'check-your-inbox');

    // The verification mail, captured by the local SMTP server; its link confirms the address.
    const mail = await nextMail(smtp.mails, EMAIL);
    await page.goto(linkIn(mail, '/dashboard/verify?token='));
    await expect.poll(() => page.locator('h1').textContent()).toBe('Address confirmed');
    await capture(page, 'address-confirmed');

    // Sign in.
    await page.getByRole('link', { name: 'Sign in' }).last().click();
    await page.getByLabel('Email address').fill(EMAIL);
    await page.getByLabel('Password').fill(PASSWORD);
    await capture(page, 'sign-in');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await expect.poll(() => page.locator('h1').textContent()).toBe('Your organizations');
    await capture(page, 'overview');

    // Create a project in the organization.
    await page.getByRole('link', { name: 'Newsroom Labs' }).click();
    await capture(page, 'organization');
    await page.getByLabel('Project name').fill('Newsroom alerts');
    await page.getByRole('button', { name: 'Create project' }).click();
    await expect.poll(() => page.locator('h1').textContent()).toBe('Newsroom alerts');
    await capture(page, 'project');
    const projectId = (await page.locator('dt:has-text("Project id") + dd code').textContent())!;

    // Alerts need a Team plan or better: the plan page says an operator changes it, and one does.
    await page.getByRole('link', { name: 'Plan', exact: true }).click();
    await capture(page, 'plan');
    const upgraded = await earshot(['projects', 'set-plan', '--project', projectId, '--plan', 'team'], env);
    expect(upgraded.code, upgraded.out).toBe(0);

    // Mint a key: shown once.
    await page.getByRole('link', { name: 'API keys' }).click();
    await page.getByLabel('Key name').fill('newsroom backend');
    await page.getByRole('button', { name: 'Mint key' }).click();
    const key = await page.locator('#new-key').inputValue();
    expect(key).toMatch(/^esk_[A-Za-z0-9]{40}$/);
    await capture(page, 'key-minted');
    expect(await api(key)).toBe(200);
    // A company of the demo catalog to watch, as the API lists it.
    const entities = (await (
      await fetch(`${svc.url}/v1/entities?limit=20`, { headers: { 'x-api-key': key } })
    ).json()) as { data: { name: string; type: { slug: string } }[] };
    const company = entities.data[0]!;
    const named = new RegExp(company.name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));

    // A webhook connection: the secret is shown once; a test reaches the local receiver.
    await page.getByRole('link', { name: 'Webhooks' }).click();
    await page.getByLabel('Endpoint URL').fill(`${receiver.url}/earshot`);
    await page.getByLabel('Name').fill('newsroom receiver');
    await page.getByRole('button', { name: 'Add connection' }).click();
    expect(await page.locator('#webhook-secret').inputValue()).toMatch(/^whsec_/);
    await capture(page, 'webhook-created');
    await page.getByRole('button', { name: /^Send a test/ }).click();
    await expect.poll(() => page.getByText('The test reached').count()).toBe(1);
    expect(receiver.received.some((r) => (r.body as { test?: boolean }).test === true)).toBe(true);
    await capture(page, 'webhook-tested');

    // An alert, with the entity picked from search suggestions as one types.
    await page.getByRole('link', { name: 'Alerts', exact: true }).click();
    await capture(page, 'alerts');
    await page.getByRole('link', { name: 'New alert' }).click();
    await page.getByLabel('Title').fill(`${company.name} on air`);
    await page
      .getByLabel('Find a person, company or topic')
      .pressSequentially(company.name.split(' ')[0]!, { delay: 30 });
    await page.getByRole('button', { name: named }).first().click();
    await expect.poll(() => page.getByRole('checkbox', { name: named }).first().isChecked()).toBe(true);
    await page.getByRole('checkbox', { name: /Webhook newsroom receiver/ }).check();
    await capture(page, 'alert-form');
    await page.getByRole('button', { name: 'Create alert' }).click();
    await expect.poll(() => page.locator('h1').textContent()).toBe(`${company.name} on air`);
    await capture(page, 'alert');
    const alerts = (await (
      await fetch(`${svc.url}/v1/projects/${projectId}/alerts`, { headers: { 'x-api-key': key } })
    ).json()) as { data: { title: string; notifications: { type: string }[] }[] };
    expect(alerts.data).toMatchObject([
      { title: `${company.name} on air`, notifications: [{ type: 'WEBHOOK' }] },
    ]);

    // The same project read on a phone.
    await page.setViewportSize({ width: 390, height: 844 });
    await page.getByRole('link', { name: 'API keys' }).click();
    await capture(page, 'keys-on-a-phone');
    await page.setViewportSize({ width: 1280, height: 900 });

    // Revoke the key: the API refuses it from the next request on.
    await page.getByRole('button', { name: 'Revoke key newsroom backend' }).click();
    await expect.poll(() => page.getByText('The key was revoked').count()).toBe(1);
    await capture(page, 'key-revoked');
    expect(await api(key)).toBe(401);

    // Usage, as the API counted it.
    await page.getByRole('link', { name: 'Usage' }).click();
    await capture(page, 'usage');

    await context.close();
    const saved = fs.readdirSync(shots).filter((f) => f.endsWith('.png'));
    expect(saved.length).toBe(shot);
  }, 240_000);
});
