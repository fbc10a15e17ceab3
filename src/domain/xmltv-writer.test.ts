import { describe, expect, it } from 'vitest';
import { emptyDetails } from './programme-details.js';
import { channelXml, escapeXml, escapeXmlText, programmeXml } from './xmltv-writer.js';

describe('escapeXml', () => {
  it('escapes markup and keeps line breaks and tabs as references', () => {
    expect(escapeXml('Tom & Jerry <"live">')).toBe('Tom &amp; Jerry &lt;&quot;live&quot;&gt;');
    expect(escapeXml('a\r\nb\tc')).toBe('a&#13;&#10;b&#9;c');
    expect(escapeXml('plain text, Télé 📺')).toBe('plain text, Télé 📺');
  });

  it('keeps line breaks and tabs as they are in element content, a carriage return aside', () => {
    expect(escapeXmlText('Tom & Jerry <"live">')).toBe('Tom &amp; Jerry &lt;"live"&gt;');
    expect(escapeXmlText('line one\n\tline two\r\n')).toBe('line one\n\tline two&#13;\n');
    expect(escapeXmlText('a\u0000b')).toBe('ab');
  });

  it('drops what XML 1.0 cannot hold: control characters, lone surrogates, U+FFFE/FFFF', () => {
    expect(escapeXml('a\u0000b\u0008c\u001fd')).toBe('abcd');
    expect(escapeXml('x\ud800y\udc00z\ufffe\uffff')).toBe('xyz');
    expect(escapeXml('\ud83d\udcfa & ok')).toBe('\ud83d\udcfa &amp; ok');
  });
});

describe('programmeXml', () => {
  it('writes an empty title for a programme the guide gave none, and no stop when unknown', () => {
    const xml = programmeXml('a&b.uk', {
      start: '20260301060000 +0000',
      stop: '',
      details: emptyDetails(),
    });
    expect(xml).toBe(
      '<programme start="20260301060000 +0000" channel="a&amp;b.uk"><title></title></programme>\n',
    );
  });

  it('groups credits by role in DTD order and leaves out a subtitle type the DTD does not have', () => {
    const details = {
      ...emptyDetails(),
      titles: [{ value: 'T', lang: 'en' }],
      credits: [
        { role: 'actor' as const, name: 'A1', character: 'Hero' },
        { role: 'director' as const, name: 'D', character: '' },
        { role: 'actor' as const, name: 'A2', character: '' },
      ],
      subtitles: [{ type: 'burnt-in', language: 'en' }],
    };
    const xml = programmeXml('c', { start: 's', stop: 'e', details });
    expect(xml).toContain(
      '<credits><director>D</director><actor role="Hero">A1</actor><actor>A2</actor></credits>',
    );
    expect(xml).toContain('<subtitles><language>en</language></subtitles>');
  });

  it('leaves out what tv_validate_file refuses: an empty desc, a malformed or second xmltv_ns', () => {
    const details = {
      ...emptyDetails(),
      titles: [{ value: 'T', lang: '' }],
      descs: [
        { value: ' ', lang: 'de' },
        { value: 'Kept', lang: 'en' },
      ],
      episodeIds: [
        { system: 'xmltv_ns', value: 'S01E02' },
        { system: 'xmltv_ns', value: ' 0 . 1/10 . ' },
        { system: 'xmltv_ns', value: '1.2.' },
        { system: 'onscreen', value: 'S01E02' },
      ],
    };
    const xml = programmeXml('c', { start: 's', stop: '', details });
    expect(xml).toContain('<title>T</title><desc lang="en">Kept</desc>');
    expect(xml.match(/<episode-num[^>]*>[^<]*<\/episode-num>/g)).toEqual([
      '<episode-num system="xmltv_ns"> 0 . 1/10 . </episode-num>',
      '<episode-num system="onscreen">S01E02</episode-num>',
    ]);
  });

  it('writes a channel with its icon only when it has one', () => {
    expect(channelXml({ xmltvId: 'x', name: 'X & Y', displayNames: [], icon: '' })).toBe(
      '<channel id="x"><display-name>X &amp; Y</display-name></channel>\n',
    );
    expect(
      channelXml({ xmltvId: 'x', name: 'X', displayNames: [], icon: 'https://i/x.png?a=1&b=2' }),
    ).toContain('<icon src="https://i/x.png?a=1&amp;b=2"/>');
  });

  it("writes the catalogue's name first, then the guide's other display-names with their lang", () => {
    const channel = { xmltvId: 'one.uk', icon: 'https://i/1.png' };
    const names = [
      { value: 'One', lang: 'en' },
      { value: '101', lang: '' },
      { value: 'One <HD>', lang: 'en' },
    ];
    expect(channelXml({ ...channel, name: 'One', displayNames: names })).toBe(
      '<channel id="one.uk"><display-name lang="en">One</display-name>' +
        '<display-name>101</display-name><display-name lang="en">One &lt;HD&gt;</display-name>' +
        '<icon src="https://i/1.png"/></channel>\n',
    );
    // A name the operator fixed comes first, without a lang; the guide's own follow it.
    expect(channelXml({ ...channel, name: 'BBC One', displayNames: names.slice(0, 2) })).toBe(
      '<channel id="one.uk"><display-name>BBC One</display-name>' +
        '<display-name lang="en">One</display-name><display-name>101</display-name>' +
        '<icon src="https://i/1.png"/></channel>\n',
    );
  });
});
