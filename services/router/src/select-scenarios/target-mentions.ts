/**
 * Target mentions v1 (data): every way a ticket names a database target that the router checks
 * against the providers' inventories. A mention is only a candidate; nothing becomes a target
 * unless an inventory holds it, so these forms may be generous.
 */
export type MentionForm = 'keyword' | 'label' | 'link' | 'host' | 'quoted' | 'token';

export interface TargetMention {
  text: string;
  form: MentionForm;
}

/** Words users put before a target name ("cluster payments-prod", "db instance orders-prod"). */
const KEYWORDS = [
  'cluster', 'clusters', 'instance', 'instances', 'db instance', 'database instance', 'rds instance', 'rds', 'aurora cluster', 'aurora', 'database', 'db',
  'host', 'hostname', 'server', 'replica', 'primary', 'node', 'target', 'deployment', 'service', 'endpoint',
];
const NAME = '[A-Za-z0-9][A-Za-z0-9_.:/-]{0,126}[A-Za-z0-9]';
const keywordPattern = new RegExp(
  `\\b(?:${KEYWORDS.map((k) => k.replace(/ /g, '\\s+')).join('|')})(?:\\s+(?:id|name|identifier))?\\s*(?:[:=#]|\\bis\\b|\\bcalled\\b|\\bnamed\\b)?\\s*[\`"'(\\[]?(${NAME})`,
  'gi',
);
/** `instance="x"`, `cluster=x`, `dbinstance_identifier: "x"` as pasted from a dashboard or alert. */
const labelPattern = new RegExp(`\\b[a-z_][a-z0-9_]{1,40}\\s*(?:=~?|:)\\s*["'\`]?(${NAME})`, 'gi');
const urlPattern = /\bhttps?:\/\/[^\s<>()"'`]+/gi;
/** Path segments after these words in a console link name the target. */
const LINK_SEGMENT = /^(?:clusters?|instances?|databases?|dbs?|nodes?|hosts?|servers?|targets?|deployments?)$/i;
const hostPattern = /\b([a-z0-9][a-z0-9-]{0,62})((?:\.[a-z0-9-]{1,63}){2,})\b/gi;
const quotedPattern = new RegExp(`[\`"'](${NAME})[\`"']`, 'g');
/** Distinctive bare tokens: joined by - _ . or carrying a digit ("payments-prod", "pg14"). */
const tokenPattern = /\b[A-Za-z0-9]+(?:[-_.][A-Za-z0-9]+)+\b|\b[A-Za-z]+\d[A-Za-z0-9]*\b/g;

const TRAILING = /[.:/-]+$/;

function clean(raw: string): string | null {
  const text = raw.replace(TRAILING, '');
  return text.length >= 2 && text.length <= 128 ? text : null;
}

/** Mentions in a console link: path segments after a target word, `id=` style parameters, AWS `#database:id=`. */
function linkMentions(url: string): string[] {
  const out: string[] = [];
  const [beforeHash, hash = ''] = url.split('#', 2);
  const [path, query = ''] = beforeHash.split('?', 2);
  const segments = path.replace(/^https?:\/\/[^/]+/i, '').split('/').filter(Boolean);
  segments.forEach((s, i) => {
    if (LINK_SEGMENT.test(s) && segments[i + 1]) out.push(decodeURIComponent(segments[i + 1]));
  });
  for (const part of [...query.split('&'), ...hash.split(/[;&]/)]) {
    const m = /^(?:[a-z]+:)?(?:id|cluster|cluster_?id|instance|instance_?id|db|database|dbinstance_?identifier|var-[a-z_]+)=([^&;#]+)$/i.exec(part);
    if (m) out.push(decodeURIComponent(m[1]));
  }
  return out;
}

/** Every candidate target mention in the text, strongest forms first, each text once (case-insensitive). */
export function extractTargetMentions(text: string): TargetMention[] {
  const found: TargetMention[] = [];
  const seen = new Set<string>();
  const add = (raw: string | undefined, form: MentionForm) => {
    const t = raw === undefined ? null : clean(raw);
    if (!t || seen.has(t.toLowerCase())) return;
    seen.add(t.toLowerCase());
    found.push({ text: t, form });
  };
  const urls = [...text.matchAll(urlPattern)].map((m) => m[0]);
  for (const url of urls) for (const m of linkMentions(url)) add(m, 'link');
  const plain = urls.reduce((acc, url) => acc.replace(url, ' '), text);
  for (const m of plain.matchAll(keywordPattern)) add(m[1], 'keyword');
  for (const m of plain.matchAll(labelPattern)) add(m[1], 'label');
  for (const m of plain.matchAll(hostPattern)) {
    add(`${m[1]}${m[2]}`, 'host');
    add(m[1], 'host');
  }
  for (const m of plain.matchAll(quotedPattern)) add(m[1], 'quoted');
  for (const m of plain.matchAll(tokenPattern)) add(m[0], 'token');
  return found;
}
