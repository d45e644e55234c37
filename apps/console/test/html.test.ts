import { describe, expect, it } from 'vitest';
import { html, raw } from '../src/html/html.ts';
import { formatAge, partsText, stateBadge, stateLabel } from '../src/html/format.ts';

describe('html templates', () => {
  it('escapes every interpolated value unless it is already markup', () => {
    const evil = `"><img src=x onerror=alert(1)>'`;
    expect(html`<p title="${evil}">${evil}</p>`.value).toBe(
      '<p title="&quot;&gt;&lt;img src=x onerror=alert(1)&gt;&#39;">&quot;&gt;&lt;img src=x onerror=alert(1)&gt;&#39;</p>',
    );
    const list = html`<li>ok</li>`;
    // prettier-ignore
    expect(html`<ul>${['<a>', list]}</ul>`.value).toBe('<ul>&lt;a&gt;<li>ok</li></ul>');
    expect(html`${null}${undefined}${false}${0}${raw('<br>')}`.value).toBe('0<br>');
  });
});

describe('formatting', () => {
  it('labels states in words', () => {
    expect(stateLabel('TASK_STATE_INPUT_REQUIRED')).toBe('input required');
    expect(stateBadge('TASK_STATE_WORKING').value).toBe('<span class="badge state-working">working</span>');
  });

  it('previews parts of every kind, clipped', () => {
    expect(partsText([{ text: 'a' }, { data: { n: 1 } }, { url: 'https://x/y', filename: 'y.pdf' }])).toBe(
      'a\n{"n":1}\n[file y.pdf https://x/y]',
    );
    expect(partsText([{ raw: 'AAAA', filename: 'f.bin' }])).toBe('[file f.bin, 3 bytes]');
    expect(partsText([{ text: 'x'.repeat(30) }], 10)).toBe('xxxxxxxxxx… (20 more characters)');
  });

  it('formats ages for people', () => {
    expect(formatAge(850)).toBe('850 ms');
    expect(formatAge(12_340)).toBe('12.3 s');
    expect(formatAge(245_000)).toBe('4 min 05 s');
    expect(formatAge(2 * 3_600_000 + 7 * 60_000)).toBe('2 h 07 min');
    expect(formatAge(76 * 3_600_000)).toBe('3 d 4 h');
  });
});
