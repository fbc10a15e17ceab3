// Writes a generated XMLTV guide of the kind issue 26 describes: channels in several countries,
// times with offsets, entities, text in French and German with accents, rich programmes
// (sub-titles, credits, categories, episode numbers, ratings), every description a new draw of
// words (so nothing repeats, unlike the corpus guide of bench/ingest.mjs). Deterministic.
//
//   node bench/multilingual-guide.mjs OUT.xml [--channels 300] [--days 21] [--words ja]
//   node bench/ingest.mjs --file OUT.xml --scale 1
//
// `--words ja` mixes two Japanese words into the vocabulary. 300 channels × 21 days is about
// 124 MB and 173,000 programmes; it passes `tv_validate_file`.
import { createWriteStream } from 'node:fs';

const args = process.argv.slice(2);
const out = args[0];
if (out === undefined || out.startsWith('--')) {
  console.error('usage: node bench/multilingual-guide.mjs OUT.xml [--channels N] [--days N]');
  process.exit(2);
}
const option = (name, fallback) => {
  const at = args.indexOf(name);
  return at < 0 ? fallback : args[at + 1];
};
const channels = Number(option('--channels', '300'));
const days = Number(option('--days', '21'));
const WORDS = [
  'Noticias',
  'Télé',
  'Été',
  'Café',
  'naïve',
  'Ærø',
  'Straße',
  'München',
  ...(option('--words', '') === 'ja' ? ['東京', 'ニュース'] : ['Zürich', 'Genève']),
  'Sport',
  'News',
  'Film',
  'Drama',
  'Kinder',
  'Jeux',
  'Météo',
  'Économie',
  'Santé',
  'Cuisine',
];
const COUNTRIES = ['fr', 'de', 'es', 'jp', 'in', 'us'];
const OFFSETS = ['+0000', '+0100', '+0200', '-0500', '+0530', '+0900', '-0330'];

// A small seeded generator (mulberry32): the same guide on every run.
let seed = 0x6f6e6169;
const random = () => {
  seed = (seed + 0x6d2b79f5) | 0;
  let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
  t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
};
const below = (n) => Math.floor(random() * n);
const word = () => WORDS[below(WORDS.length)];
const words = (n) => Array.from({ length: n }, word).join(' ');
const pad = (n) => String(n).padStart(2, '0');
/** An XMLTV time for `ms` in the offset `offset`. */
const time = (ms, offset) => {
  const minutes = (offset[0] === '-' ? -1 : 1) * (+offset.slice(1, 3) * 60 + +offset.slice(3));
  const d = new Date(ms + minutes * 60_000);
  return `${d.getUTCFullYear()}${pad(d.getUTCMonth() + 1)}${pad(d.getUTCDate())}${pad(d.getUTCHours())}${pad(d.getUTCMinutes())}00 ${offset}`;
};

const file = createWriteStream(out);
const write = (text) =>
  new Promise((done) => (file.write(text) ? done() : file.once('drain', done)));
const id = (c) => `ch${c}.example.${COUNTRIES[c % COUNTRIES.length]}`;
let head = '<?xml version="1.0" encoding="UTF-8"?>\n<!DOCTYPE tv SYSTEM "xmltv.dtd">\n';
head += '<tv generator-info-name="onair-bench">\n';
for (let c = 0; c < channels; c++) {
  head += `  <channel id="${id(c)}"><display-name lang="fr">Chaîne ${c} &amp; ${word()}</display-name><icon src="https://img.example/${c}.png"/></channel>\n`;
}
await write(head);
const start = Date.UTC(2026, 10, 20);
let programmes = 0;
for (let c = 0; c < channels; c++) {
  const offset = OFFSETS[c % OFFSETS.length];
  let chunk = '';
  for (let t = start; t < start + days * 86_400_000;) {
    const length = (15 + below(6) * 15) * 60_000;
    chunk += `  <programme start="${time(t, offset)}" stop="${time(t + length, offset)}" channel="${id(c)}">
    <title lang="fr">${words(3)} &amp; ${word()}</title>
    <sub-title lang="fr">Épisode ${below(50)} &#8211; ${words(2)}</sub-title>
    <desc lang="fr">${words(8)} &lt;${word()}&gt; ${words(4)}</desc>
    <credits><director>${word()} ${word()}</director><actor role="${word()}">${word()} ${word()}</actor><actor>${word()} ${word()}</actor></credits>
    <date>20${10 + below(16)}</date>
    <category lang="en">${word()}</category><category lang="fr">${word()}</category>
    <episode-num system="xmltv_ns">${below(5)}.${below(20)}.0/1</episode-num>
    <rating system="VCHIP"><value>TV-${['G', 'PG', '14'][below(3)]}</value></rating>
  </programme>\n`;
    t += length;
    programmes++;
  }
  await write(chunk);
}
await write('</tv>\n');
await new Promise((done) => file.end(done));
console.log(`${out}: ${channels} channels, ${programmes} programmes`);
