import assert from 'node:assert/strict';

export interface XmlNode {
  name: string;
  attrs: Record<string, string>;
  children: XmlNode[];
  /** The element's own character data, entities decoded. */
  text: string;
}

const PREDEFINED: Record<string, string> = { '&lt;': '<', '&gt;': '>', '&amp;': '&', '&quot;': '"', '&apos;': "'" };
const decode = (s: string) => s.replace(/&lt;|&gt;|&amp;|&quot;|&apos;|&#(\d+);|&#x([0-9a-fA-F]+);/g, (e, dec?: string, hex?: string) => (dec ?? hex ? String.fromCodePoint(dec ? Number(dec) : parseInt(hex!, 16)) : PREDEFINED[e]!));

/** XML 1.0 §2.2 production [2] Char; with the `u` flag a lone surrogate is outside every range. */
const NOT_CHAR = /[^\t\n\r\u0020-\ud7ff\ue000-\ufffd\u{10000}-\u{10ffff}]/u;
const isChar = (code: number) => !NOT_CHAR.test(String.fromCodePoint(code));

/**
 * A strict reader for the XML subset JUnit reports use: declaration, elements, attributes, text and
 * the five predefined or numeric entities. Throws on anything not well formed, including what a
 * non-validating parser must reject outside the markup: a character that is no XML Char (§2.2 [2],
 * U+FFFE, U+FFFF, lone surrogates, C0 controls) anywhere in the document, or a character reference
 * to one (§4.1, WFC: Legal Character).
 */
export function parseXml(text: string): XmlNode {
  const decl = /^<\?xml version="1\.0" encoding="UTF-8"\?>\n/.exec(text);
  assert.ok(decl, 'XML declaration');
  const bad = NOT_CHAR.exec(text);
  assert.equal(bad, null, `U+${bad?.[0].charCodeAt(0).toString(16).toUpperCase()} at ${bad?.index} is no XML character`);
  for (const [ref, dec, hex] of text.matchAll(/&#(?:(\d+)|x([0-9a-fA-F]+));/g)) {
    assert.ok(isChar(dec !== undefined ? Number(dec) : parseInt(hex!, 16)), `${ref} refers to no XML character`);
  }
  let at = decl[0].length;
  const entity = /&(?:lt|gt|amp|quot|apos|#\d+|#x[0-9a-fA-F]+);/y;
  const checkText = (s: string, where: string) => {
    for (let i = s.indexOf('&'); i !== -1; i = s.indexOf('&', i + 1)) {
      entity.lastIndex = i;
      assert.ok(entity.test(s), `bare & in ${where}`);
    }
    assert.ok(!s.includes('<'), `bare < in ${where}`);
  };
  const stack: XmlNode[] = [];
  let root: XmlNode | undefined;
  const tag = /<(\/?)([A-Za-z_][\w.-]*)((?:\s+[A-Za-z_][\w.-]*="[^"]*")*)\s*(\/?)>/y;
  while (at < text.length) {
    const next = text.indexOf('<', at);
    const between = text.slice(at, next === -1 ? text.length : next);
    if (stack.length === 0) assert.equal(between.trim(), '', 'text outside the root element');
    else {
      checkText(between, `<${stack.at(-1)!.name}> text`);
      stack.at(-1)!.text += decode(between);
    }
    if (next === -1) break;
    tag.lastIndex = next;
    const m = tag.exec(text);
    assert.ok(m, `malformed tag at ${next}: ${text.slice(next, next + 40)}`);
    const [, closing, name, attrText, selfClosing] = m;
    if (closing) {
      assert.equal(stack.pop()?.name, name, `</${name}> closes the wrong element`);
    } else {
      const attrs: Record<string, string> = {};
      for (const [, k, v] of attrText!.matchAll(/([A-Za-z_][\w.-]*)="([^"]*)"/g)) {
        assert.ok(!(k! in attrs), `duplicate attribute ${k}`);
        checkText(v!, `${name}@${k}`);
        attrs[k!] = decode(v!);
      }
      const node: XmlNode = { name: name!, attrs, children: [], text: '' };
      if (stack.length) stack.at(-1)!.children.push(node);
      else {
        assert.equal(root, undefined, 'a second root element');
        root = node;
      }
      if (!selfClosing) stack.push(node);
    }
    at = tag.lastIndex;
  }
  assert.equal(stack.length, 0, 'unclosed elements');
  assert.ok(root, 'no root element');
  return root;
}
