import {
  CREDIT_ROLES,
  type LangText,
  type ProgrammeDetails,
  type SystemValue,
} from './programme-details.js';

/**
 * XMLTV written back from what Onair keeps: a channel, and a programme from its v1 fields and
 * stored details, each element in the order the XMLTV DTD requires (tv_validate_file checks it)
 * and every text escaped. Reading the output with the ingest gives back the same details.
 */

/** What a feed's channel entry says. */
export interface XmltvChannel {
  xmltvId: string;
  /** The first display-name: the channel's name in the catalogue (an operator's fix included). */
  name: string;
  /** The guide's display-names, written after `name` (each once; `name` is not repeated). */
  displayNames: readonly LangText[];
  icon: string;
}

/** What a feed's programme entry is made of. */
export interface XmltvProgramme {
  start: string;
  stop: string;
  details: ProgrammeDetails;
}

// Characters XML 1.0 does not allow at all, lone surrogates included (a parsed guide's texts
// hold none, but a name set by an operator might): dropped rather than making the document
// unreadable.
const NOT_XML =
  // eslint-disable-next-line no-control-regex
  /[\u0000-\u0008\u000b\u000c\u000e-\u001f\ufffe\uffff]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;
const MARKUP = /[&<>"\r\n\t]/g;
/** Any character either replacement above would touch (a surrogate, even a paired one, too). */
// eslint-disable-next-line no-control-regex
const NEEDS_WORK = /[\u0000-\u001f&<>"\ud800-\udfff\ufffe\uffff]/;
const ENTITY: Readonly<Record<string, string>> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  // As character references, so attribute values keep them through normalisation.
  '\r': '&#13;',
  '\n': '&#10;',
  '\t': '&#9;',
};

/** Text escaped for a double-quoted attribute value (and for element content as well). */
export function escapeXml(text: string): string {
  // Most texts need nothing: one scan finds out (a feed writes a few hundred thousand).
  if (!NEEDS_WORK.test(text)) return text;
  return text.replace(NOT_XML, '').replace(MARKUP, (c) => ENTITY[c] ?? c);
}

const TEXT_MARKUP = /[&<>\r]/g;

/**
 * Text escaped for element content: line breaks and tabs stay as they are, as guides write
 * them. As references (`&#10;`) they are the same XML, yet XMLTV's own Perl tools (tv_sort,
 * tv_grep, tv_cat, which media-server setups pipe feeds through) pass them on as the text
 * "&#10;" into every multi-line description. A carriage return stays a reference: a parser
 * would read a raw one as a line feed.
 */
export function escapeXmlText(text: string): string {
  if (!NEEDS_WORK.test(text)) return text;
  return text.replace(NOT_XML, '').replace(TEXT_MARKUP, (c) => ENTITY[c] ?? c);
}

function attribute(name: string, value: string): string {
  return value === '' ? '' : ` ${name}="${escapeXml(value)}"`;
}

function element(name: string, text: string, attributes = ''): string {
  return `<${name}${attributes}>${escapeXmlText(text)}</${name}>`;
}

function langTexts(name: string, texts: readonly LangText[], out: string[]): void {
  for (const t of texts) out.push(element(name, t.value, attribute('lang', t.lang)));
}

function valued(name: string, values: readonly SystemValue[], out: string[]): void {
  for (const v of values) {
    out.push(`<${name}${attribute('system', v.system)}>${element('value', v.value)}</${name}>`);
  }
}

const SUBTITLE_TYPES: ReadonlySet<string> = new Set(['teletext', 'onscreen', 'deaf-signed']);

/** `<credits>` with its people grouped by role in the DTD's order, each role's in guide order. */
function credits(d: ProgrammeDetails, out: string[]): void {
  if (d.credits.length === 0) return;
  let inner = '';
  for (const role of CREDIT_ROLES) {
    for (const c of d.credits) {
      if (c.role === role) inner += element(role, c.name, attribute('role', c.character));
    }
  }
  out.push(`<credits>${inner}</credits>`);
}

/** The form of an xmltv_ns episode number that tv_validate_file accepts. */
const XMLTV_NS = /^\s*\d*(\s*\/\s*\d+)?\s*\.\s*\d*(\s*\/\s*\d+)?\s*\.\s*\d*(\s*\/\s*\d+)?\s*$/;

/**
 * `<episode-num>`s as the guide gave them, but for xmltv_ns: tv_validate_file reads every
 * xmltv_ns one as one text and refuses it unless it is one well-formed number, so only the
 * first, and only when well formed (the one the episode numbering is read from anyway).
 */
function episodeNumbers(ids: readonly SystemValue[], out: string[]): void {
  let xmltvNs = false;
  for (const e of ids) {
    if (e.system === 'xmltv_ns') {
      if (xmltvNs || !XMLTV_NS.test(e.value)) continue;
      xmltvNs = true;
    }
    out.push(element('episode-num', e.value, attribute('system', e.system)));
  }
}

/** `<channel>` of a feed. */
export function channelXml(channel: XmltvChannel): string {
  const icon = channel.icon === '' ? '' : `<icon src="${escapeXml(channel.icon)}"/>`;
  // Media servers match a tuner's channel to a guide's by any display-name (a short name, a
  // number), so the guide's others follow the catalogue's name.
  // The name takes the lang the guide gave it, when it is one of the guide's.
  const own = channel.displayNames.find((n) => n.value === channel.name);
  let names = element('display-name', channel.name, attribute('lang', own?.lang ?? ''));
  for (const name of channel.displayNames) {
    if (name !== own) names += element('display-name', name.value, attribute('lang', name.lang));
  }
  return `<channel id="${escapeXml(channel.xmltvId)}">${names}${icon}</channel>\n`;
}

/** `<programme>` of a channel, with every rich element in DTD order. */
export function programmeXml(channelXmltvId: string, programme: XmltvProgramme): string {
  const d = programme.details;
  const out: string[] = [
    `<programme start="${escapeXml(programme.start)}"${attribute('stop', programme.stop)}` +
      ` channel="${escapeXml(channelXmltvId)}">`,
  ];
  // The DTD wants at least one title: a programme the guide gave none has an empty one.
  if (d.titles.length === 0) out.push('<title></title>');
  langTexts('title', d.titles, out);
  langTexts('sub-title', d.subTitles, out);
  // tv_validate_file refuses an empty description: a guide's empty <desc> is left out.
  langTexts(
    'desc',
    d.descs.filter((t) => t.value.trim() !== ''),
    out,
  );
  credits(d, out);
  if (d.date !== '') out.push(element('date', d.date));
  for (const c of d.categories) out.push(element('category', c));
  for (const k of d.keywords) out.push(element('keyword', k));
  if (d.language !== '') out.push(element('language', d.language));
  if (d.originalLanguage !== '') out.push(element('orig-language', d.originalLanguage));
  if (d.lengthSeconds !== null) {
    out.push(element('length', String(d.lengthSeconds), ' units="seconds"'));
  }
  for (const src of d.images) out.push(`<icon src="${escapeXml(src)}"/>`);
  for (const u of d.urls) out.push(element('url', u));
  for (const c of d.productionCountries) out.push(element('country', c));
  episodeNumbers(d.episodeIds, out);
  if (d.video !== null) {
    const v = d.video;
    let inner = '';
    if (v.colour !== null) inner += element('colour', v.colour ? 'yes' : 'no');
    if (v.aspect !== null) inner += element('aspect', v.aspect);
    if (v.quality !== null) inner += element('quality', v.quality);
    out.push(`<video>${inner}</video>`);
  }
  if (d.audio !== null) {
    out.push(`<audio>${d.audio.stereo === null ? '' : element('stereo', d.audio.stereo)}</audio>`);
  }
  if (d.previouslyShown !== null) {
    const p = d.previouslyShown;
    out.push(`<previously-shown${attribute('start', p.start)}${attribute('channel', p.channel)}/>`);
  }
  if (d.premiere) out.push('<premiere/>');
  if (d.lastChance) out.push('<last-chance/>');
  if (d.isNew) out.push('<new/>');
  for (const s of d.subtitles) {
    const type = SUBTITLE_TYPES.has(s.type) ? attribute('type', s.type) : '';
    out.push(
      `<subtitles${type}>${s.language === '' ? '' : element('language', s.language)}</subtitles>`,
    );
  }
  valued('rating', d.ratings, out);
  valued('star-rating', d.starRatings, out);
  out.push('</programme>\n');
  return out.join('');
}

/** The document's start, up to where the channels begin. */
export function xmltvHead(generator: string): string {
  return (
    '<?xml version="1.0" encoding="UTF-8"?>\n' +
    '<!DOCTYPE tv SYSTEM "xmltv.dtd">\n' +
    `<tv generator-info-name="${escapeXml(generator)}">\n`
  );
}

export const XMLTV_TAIL = '</tv>\n';
