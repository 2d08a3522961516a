import type { Cadence } from '../../../../schemas/event-enums.ts';
import type { MatchDocument } from '../../presentation/match-document.ts';
import type { AlertInfo } from '../content.ts';

/**
 * Human-readable renderings of matches for email (text + HTML) and team chat (text + blocks).
 * Webhooks carry the match documents themselves (see envelope.ts).
 */
export interface RenderInput {
  alert: Pick<AlertInfo, 'id' | 'title' | 'kind'>;
  cadence: Cadence;
  /** Oldest first. */
  matches: MatchDocument[];
  entityNames: Map<string, string>;
  deliveryUrl: string;
  windowStart?: number | null;
  windowEnd?: number | null;
}

export function clock(seconds: number): string {
  const s = Math.max(0, Math.floor(seconds));
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  const ss = String(s % 60).padStart(2, '0');
  return h > 0 ? `${h}:${String(m).padStart(2, '0')}:${ss}` : `${m}:${ss}`;
}

function oneLine(text: string, max = 200): string {
  const flat = text
    .replace(/[\r\n\t]+/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

function entityOf(m: MatchDocument, names: Map<string, string>): string {
  return names.get(m.entity_id) ?? m.mention_variants?.[0] ?? m.entity_id;
}

function what(m: MatchDocument, names: Map<string, string>): string {
  const who = entityOf(m, names);
  return m.kind === 'PODCAST_SPEAKER' ? `${who} spoke` : `${who} was mentioned`;
}

function episodeTitle(m: MatchDocument): string {
  return m.episode?.title ?? m.source_id;
}

function podcastTitle(m: MatchDocument): string {
  return m.episode?.podcast_title ?? '';
}

function clipUrl(m: MatchDocument): string | null {
  return m.windows.find((w) => w.clip_url)?.clip_url ?? null;
}

/** The lines around the first mentions, at most `max` lines. */
function excerpt(
  m: MatchDocument,
  max = 4,
): { at: number; speaker: string; role: string | null; text: string; mention: boolean }[] {
  const out = [];
  for (const w of m.windows) {
    for (const l of w.lines) {
      out.push({
        at: l.start_seconds,
        speaker: l.speaker,
        role: l.role,
        text: l.text,
        mention: l.is_mention,
      });
      if (out.length >= max) return out;
    }
  }
  return out;
}

function dateOf(iso: string | undefined): string {
  if (!iso) return '';
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? '' : d.toISOString().slice(0, 10);
}

function period(cadence: Cadence): string {
  return cadence === 'WEEKLY' ? 'weekly' : 'daily';
}

export function emailSubject(input: RenderInput): string {
  const title = oneLine(input.alert.title, 120);
  if (input.cadence === 'REALTIME') {
    const m = input.matches[0]!;
    const on = podcastTitle(m) || episodeTitle(m);
    return oneLine(`${title}: ${entityOf(m, input.entityNames)} on ${on}`, 200);
  }
  const n = input.matches.length;
  return oneLine(`${title}: ${period(input.cadence)} digest, ${n} new match${n === 1 ? '' : 'es'}`, 200);
}

export interface EmailBody {
  subject: string;
  text: string;
  html: string;
}

export function renderEmail(input: RenderInput & { recipient: string; disableUrl: string }): EmailBody {
  const subject = emailSubject(input);
  const footerText = [
    '--',
    `You receive this because ${input.recipient} is a recipient of the alert "${oneLine(input.alert.title, 120)}".`,
    `Disable this alert: ${input.disableUrl}`,
  ].join('\n');
  const footerHtml =
    `<hr style="border:none;border-top:1px solid #ddd;margin:24px 0 12px">` +
    `<p style="color:#666;font-size:12px">You receive this because ${escapeHtml(input.recipient)} is a recipient ` +
    `of the alert “${escapeHtml(input.alert.title)}”. <a href="${escapeHtml(input.disableUrl)}">Disable this alert</a>.</p>`;

  const textParts: string[] = [input.alert.title, ''];
  const htmlParts: string[] = [`<h2 style="margin:0 0 12px">${escapeHtml(input.alert.title)}</h2>`];
  if (input.cadence === 'REALTIME') {
    const m = input.matches[0]!;
    const published = dateOf(m.episode?.published_at);
    textParts.push(
      `${what(m, input.entityNames)} on "${episodeTitle(m)}"${podcastTitle(m) ? ` (${podcastTitle(m)})` : ''}` +
        `${published ? `, published ${published}` : ''}.`,
      `${m.mention_count} ${m.kind === 'PODCAST_SPEAKER' ? 'line' : 'mention'}${m.mention_count === 1 ? '' : 's'}, ${m.relevance.replace('_', '-')}.`,
      '',
    );
    htmlParts.push(
      `<p><strong>${escapeHtml(what(m, input.entityNames))}</strong> on “${escapeHtml(episodeTitle(m))}”` +
        `${podcastTitle(m) ? ` (${escapeHtml(podcastTitle(m))})` : ''}${published ? `, published ${published}` : ''}.</p>`,
    );
    const lines = excerpt(m);
    if (lines.length > 0) {
      htmlParts.push('<blockquote style="border-left:3px solid #ccc;margin:0;padding:4px 12px">');
      for (const l of lines) {
        const who = `${l.speaker}${l.role ? ` (${l.role.toLowerCase()})` : ''}`;
        textParts.push(`  [${clock(l.at)}] ${who}: ${l.mention ? '» ' : ''}${oneLine(l.text, 400)}`);
        const body = escapeHtml(oneLine(l.text, 400));
        htmlParts.push(
          `<p style="margin:6px 0"><span style="color:#888">${clock(l.at)}</span> <b>${escapeHtml(who)}</b>: ` +
            `${l.mention ? `<mark>${body}</mark>` : body}</p>`,
        );
      }
      htmlParts.push('</blockquote>');
      textParts.push('');
    }
    const clip = clipUrl(m);
    if (clip) {
      textParts.push(`Listen: ${clip}`);
      htmlParts.push(`<p><a href="${escapeHtml(clip)}">Listen to the moment</a></p>`);
    }
  } else {
    const n = input.matches.length;
    textParts.push(`${n} new match${n === 1 ? '' : 'es'} in your ${period(input.cadence)} digest:`, '');
    htmlParts.push(
      `<p>${n} new match${n === 1 ? '' : 'es'} in your ${period(input.cadence)} digest:</p><ul>`,
    );
    for (const m of input.matches) {
      const clip = clipUrl(m);
      const line = `${what(m, input.entityNames)} on "${episodeTitle(m)}"${podcastTitle(m) ? ` (${podcastTitle(m)})` : ''}`;
      const summary = m.llm_summary ? oneLine(m.llm_summary, 400) : undefined;
      textParts.push(
        `- ${line}, ${dateOf(m.detected_at)}${summary ? `\n  ${summary}` : ''}${clip ? `\n  ${clip}` : ''}`,
      );
      htmlParts.push(
        `<li style="margin:6px 0">${escapeHtml(line)}, ${dateOf(m.detected_at)}` +
          `${clip ? ` — <a href="${escapeHtml(clip)}">listen</a>` : ''}` +
          `${summary ? `<br><span style="color:#555">${escapeHtml(summary)}</span>` : ''}</li>`,
      );
    }
    htmlParts.push('</ul>');
    textParts.push('');
  }
  textParts.push(`Details: ${input.deliveryUrl}`, '', footerText);
  htmlParts.push(`<p><a href="${escapeHtml(input.deliveryUrl)}">See the details</a></p>`, footerHtml);
  const html =
    `<!doctype html><html><body style="font-family:system-ui,-apple-system,Segoe UI,sans-serif;` +
    `font-size:14px;line-height:1.45;color:#222;max-width:640px">${htmlParts.join('\n')}</body></html>`;
  return { subject, text: textParts.join('\n'), html };
}

/** Team-chat markup escapes only &, < and >. */
function chatEscape(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

function chatLink(url: string, label: string): string {
  return `<${url.replace(/[<>|]/g, encodeURIComponent)}|${chatEscape(label).replace(/\|/g, '¦')}>`;
}

export interface ChatMessage {
  text: string;
  blocks: unknown[];
}

const MAX_DIGEST_LINES = 15;

export function renderChat(input: RenderInput): ChatMessage {
  const title = chatEscape(oneLine(input.alert.title, 150));
  if (input.cadence === 'REALTIME') {
    const m = input.matches[0]!;
    const head = `${what(m, input.entityNames)} on “${episodeTitle(m)}”${podcastTitle(m) ? ` (${podcastTitle(m)})` : ''}`;
    const quote = excerpt(m, 3)
      .map((l) => `> _${clock(l.at)}_ *${chatEscape(l.speaker)}*: ${chatEscape(oneLine(l.text, 300))}`)
      .join('\n');
    const clip = clipUrl(m);
    const links = [clip ? chatLink(clip, 'Listen') : undefined, chatLink(input.deliveryUrl, 'Details')]
      .filter(Boolean)
      .join(' · ');
    return {
      text: oneLine(`${input.alert.title}: ${head}`, 300),
      blocks: [
        { type: 'section', text: { type: 'mrkdwn', text: `*${title}*\n${chatEscape(head)}` } },
        ...(quote ? [{ type: 'section', text: { type: 'mrkdwn', text: quote } }] : []),
        {
          type: 'context',
          elements: [
            {
              type: 'mrkdwn',
              text: `${m.mention_count} ${m.kind === 'PODCAST_SPEAKER' ? 'line' : 'mention'}${m.mention_count === 1 ? '' : 's'} · ${links}`,
            },
          ],
        },
      ],
    };
  }
  const n = input.matches.length;
  const lines = input.matches.slice(0, MAX_DIGEST_LINES).map((m) => {
    const clip = clipUrl(m);
    const label = `${what(m, input.entityNames)} on “${episodeTitle(m)}”`;
    return `• ${clip ? chatLink(clip, label) : chatEscape(label)}${podcastTitle(m) ? ` — ${chatEscape(podcastTitle(m))}` : ''}`;
  });
  if (n > MAX_DIGEST_LINES) lines.push(`…and ${n - MAX_DIGEST_LINES} more`);
  return {
    text: `${input.alert.title}: ${period(input.cadence)} digest, ${n} new match${n === 1 ? '' : 'es'}`,
    blocks: [
      {
        type: 'section',
        text: {
          type: 'mrkdwn',
          text: `*${title}* — ${period(input.cadence)} digest, ${n} new match${n === 1 ? '' : 'es'}`,
        },
      },
      { type: 'section', text: { type: 'mrkdwn', text: lines.join('\n').slice(0, 2900) } },
      { type: 'context', elements: [{ type: 'mrkdwn', text: chatLink(input.deliveryUrl, 'Details') }] },
    ],
  };
}
