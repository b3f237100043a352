// cheerio's tests of $(selector, context, root), $.html(), $.text() and load (cheeriojs/cheerio@808f845:
// src/static.spec.ts, src/cheerio.spec.ts, src/load.spec.ts, src/__tests__/deprecated.spec.ts)
// as cases; see gen.mjs. The spec's fixture `cheerio` (load([])) is $ loaded from '' here, and a
// test's own `const $ = cheerio.load(html)` becomes the case's html.
const notListed = (m) => `${m}: not among the APIs issue 31 asks for`;
const S = 'src/static.spec.ts';
const C = 'src/cheerio.spec.ts';
const L = 'src/load.spec.ts';
const D = 'src/__tests__/deprecated.spec.ts';
// testAppleSelect in cheerio.spec.ts, returning what it asserts.
const apple = `function testAppleSelect($apple) {
  const apple = $apple[0];
  return [$apple.length, apple.parentNode.tagName, apple.prev === null, apple.next.attribs.class, apple.childNodes.length, apple.childNodes[0].data];
}
`;
const appleWant = [1, 'ul', true, 'orange', 1, 'Apple'];
const textDeep = '<a>This is <div>a child with <span>another child and <!-- a comment --> not a comment</span> followed by <em>one last child</em> and some final</div> text.</a>';
const textDeepWant = 'This is a child with another child and  not a comment followed by one last child and some final text.';

export default [
  { src: S, d: 'cheerio > .html', html: '', cases: [
    ['() : should return innerHTML; $.html(obj) should return outerHTML', `const $div = $('div', '<div><span>foo</span><span>bar</span></div>');\nconst span = $div.children()[1];\nreturn [$(span).html(), $.html(span)];`, ['bar', '<span>bar</span>']],
    ['(<obj>) : should accept an object, an array, or a cheerio object', `const $span = $('<span>foo</span>');\nreturn [$.html($span[0]), $.html($span)];`, ['<span>foo</span>', '<span>foo</span>']],
    ['(<value>) : should be able to set to an empty string', `const $elem = $('<span>foo</span>').html('');\nreturn $.html($elem);`, '<span></span>'],
    ['(<root>) : does not render the root element', `const q = cheerio.load('');\nreturn $.html(q.root());`, '<html><head></head><body></body></html>'],
    ['(<elem>, <root>, <elem>) : does not render the root element', null, null, { skip: 'builds its collection with .add, which issue 31 does not list' }],
    ['(<opts>) : keeps using the instance parser when serializing', `// An htmlparser2-backed instance, rendered as HTML rather than XML.\nconst q = cheerio.load('<style>a < b && c > d</style><p>x<br>y</p>', {\n  xmlMode: true,\n});\nreturn q.html(undefined, { xmlMode: false });`, '<style>a < b && c > d</style><p>x<br>y</p>', { specDisagrees: 'it renders an xmlMode document with html(undefined, { xmlMode: false }) as XML (escaped style text, <br></br>); the spec (after 1.2.0) expects HTML' }],
    ['() : does not crash with `null` as `this` value', `const { html } = $;\nreturn [html.call(null), html.call(null, '#nothing')];`, ['', '']],
  ] },
  { src: S, d: 'cheerio > .text', cases: [
    ['(cheerio object) : should return the text contents of the specified elements', `return $.text($('a'));`, 'This is content.', { html: '<a>This is <em>content</em>.</a>' }],
    ['(cheerio object) : should omit comment nodes', `return $.text($('a'));`, 'This is  not a comment.', { html: '<a>This is <!-- a comment --> not a comment.</a>' }],
    ['(cheerio object) : should include text contents of children recursively', `return $.text($('a'));`, textDeepWant, { html: textDeep }],
    ['() : should return the rendered text content of the root', `return $.text($.root());`, textDeepWant, { html: textDeep }],
    ['(cheerio object) : should not omit script tags', `return $.text($.root());`, 'console.log("test")', { html: '<script>console.log("test")</script>' }],
    ['(cheerio object) : should omit style tags', `return $.text();`, '.cf-hidden { display: none; }', { html: '<style type="text/css">.cf-hidden { display: none; }</style>' }],
    ['() : does not crash with `null` as `this` value', `const { text } = $;\nreturn text.call(null);`, '', { html: '' }],
  ] },
  { src: S, d: 'cheerio > .parseHTML, .merge, .contains, .root, .extract', cases: [['(all 26 tests)', null, null, { skip: notListed('$.parseHTML, $.merge, $.contains, $.root (with append) and $.extract') }]] },

  { src: C, d: 'cheerio', html: '', cases: [
    ['cheerio(null) should be empty', `return $(null).length;`, 0],
    ['cheerio(undefined) should be empty', `return $(undefined).length;`, 0],
    ["cheerio('') should be empty", `return $('').length;`, 0],
    ['cheerio(selector) with no context or root should be empty', `return [$('.h2').length, $('#fruits').length];`, [0, 0]],
    ['cheerio(node) : should override previously-loaded nodes', `const spanNode = $('span')[0];\nconst $span = $(spanNode);\nreturn $span[0] === spanNode;`, true, { html: '<div><span></span></div>' }],
    ['should be able to create html without a root or context', `const $h2 = $('<h2>');\nreturn [$h2.length, $h2[0].tagName];`, [1, 'h2']],
    ['should be able to create complicated html', `const $script = $('<script src="script.js" type="text/javascript"></script>');\nreturn [$script.length, $script[0].attribs.src, $script[0].attribs.type, $script[0].childNodes.length];`, [1, 'script.js', 'text/javascript', 0]],
    ['should be able to select .apple with only a context', apple + `return testAppleSelect($('.apple', fruits));`, appleWant, { fx: 'fruits' }],
    ['should be able to select .apple with a node as context', apple + `return testAppleSelect($('.apple', $(fruits)[0]));`, appleWant, { fx: 'fruits' }],
    ['should be able to select .apple with only a root', apple + `return testAppleSelect($('.apple', null, fruits));`, appleWant, { fx: 'fruits' }],
    ['should be able to select an id', `const $fruits = $('#fruits', null, fruits);\nreturn [$fruits.length, $fruits[0].attribs.id];`, [1, 'fruits'], { fx: 'fruits' }],
    ['should be able to select a tag', `const $ul = $('ul', fruits);\nreturn [$ul.length, $ul[0].tagName];`, [1, 'ul'], { fx: 'fruits' }],
    ['should accept a node reference as a context', `const $elems = $('<div><span></span></div>');\nreturn $('span', $elems[0]).length;`, 1],
    ['should accept an array of node references as a context', `const $elems = $('<div><span></span></div>');\nreturn $('span', $elems.toArray()).length;`, 1],
    ['should select only elements inside given context (Issue #193)', `const $fruits = $('#fruits');\nconst fruitElements = $('li', $fruits);\nreturn fruitElements.length;`, 3, { html: 'food' }],
    ['should be able to select multiple tags', `const $fruits = $('li', null, fruits);\nconst classes = [];\n$fruits.each((idx, $fruit) => {\n  classes.push($fruit.attribs.class);\n});\nreturn [$fruits.length, classes];`, [3, ['apple', 'orange', 'pear']], { fx: 'fruits' }],
    ['should be able to do: cheerio("#fruits .apple")', apple + `return testAppleSelect($('#fruits .apple', fruits));`, appleWant, { fx: 'fruits' }],
    ['should be able to do: cheerio("li.apple")', apple + `return testAppleSelect($('li.apple', fruits));`, appleWant, { fx: 'fruits' }],
    ['should be able to select by attributes', apple + `return testAppleSelect($('li[class=apple]', fruits));`, appleWant, { fx: 'fruits' }],
    ['should be able to select multiple classes: cheerio(".btn.primary")', `const $a = $('.btn.primary', '<p><a class="btn primary" href="#">Save</a></p>');\nreturn [$a.length, $a[0].childNodes[0].data];`, [1, 'Save']],
    ['should not create a top-level node', `return $('* div', '<div>').length;`, 0],
    ['should be able to select multiple elements: cheerio(".apple, #fruits")', apple + `const $elems = $('.apple, #fruits', fruits);\nconst $apple = $elems.toArray().filter((elem) => elem.attribs['class'] === 'apple');\nconst $fruit = $elems.toArray().find((elem) => elem.attribs['id'] === 'fruits');\nreturn [$elems.length, testAppleSelect($apple), $fruit.attribs.id];`, [2, appleWant, 'fruits'], { fx: 'fruits' }],
    ['should select first element cheerio(:first)', `const $elem = $('li:first', fruits);\nconst $filtered = $('li', fruits).filter(':even');\nreturn [$elem.attr('class'), $filtered.length];`, ['apple', 2], { fx: 'fruits' }],
    ['should be able to select immediate children: cheerio("#fruits > .pear")', null, null, { skip: 'adds a pear with .append, which issue 31 does not list' }],
    ['should be able to select immediate children: cheerio(".apple + .pear")', `const $elem = $('.apple + .orange', fruits);\nreturn [$('.apple + li', fruits).length, $('.apple + .pear', fruits).length, $elem.length, $elem.attr('class')];`, [1, 0, 1, 'orange'], { fx: 'fruits' }],
    ['should be able to select immediate children: cheerio(".apple ~ .pear")', `return [$('.apple ~ li', fruits).length, $('.apple ~ .pear', fruits).attr('class')];`, [2, 'pear'], { fx: 'fruits' }],
    ['should handle wildcards on attributes: cheerio("li[class*=r]")', `const $elem = $('li[class*=r]', fruits);\nreturn [$elem.length, $elem.eq(0).attr('class'), $elem.eq(1).attr('class')];`, [2, 'orange', 'pear'], { fx: 'fruits' }],
    ['should handle beginning of attr selectors: cheerio("li[class^=o]")', `const $elem = $('li[class^=o]', fruits);\nreturn [$elem.length, $elem.eq(0).attr('class')];`, [1, 'orange'], { fx: 'fruits' }],
    ['should handle beginning of attr selectors: cheerio("li[class$=e]")', `const $elem = $('li[class$=e]', fruits);\nreturn [$elem.length, $elem.eq(0).attr('class'), $elem.eq(1).attr('class')];`, [2, 'apple', 'orange'], { fx: 'fruits' }],
    ['(extended Array) should not interfere with prototype methods (issue #119)', `const extended = [];\nextended.find = extended.children = extended.each = () => {};\nconst $empty = $(extended);\nreturn [$empty.find === $.prototype.find, $empty.children === $.prototype.children, $empty.each === $.prototype.each];`, [true, true, true]],
    ['cheerio.html(null) should return a "" string', `// The spec's fixture document is empty: load([]).\nreturn cheerio.load([]).html(null);`, ''],
    ['should set html(number) as a string', `const $elem = $('<div>');\n$elem.html(123);\nreturn typeof $elem.text();`, 'string'],
    ['should set text(number) as a string', `const $elem = $('<div>');\n$elem.text(123);\nreturn typeof $elem.text();`, 'string'],
  ] },
  { src: C, d: 'cheerio > .load', html: '', cases: [
    ['should generate selections as proper instances', `return $('.apple') instanceof $;`, true, { html: 'fruits' }],
    ['should handle a character `)` in `:contains` selector', "const result = cheerio.load('<p>)aaa</p>')(String.raw`:contains('\\)aaa')`);\nreturn [result.length, result.first().prop('tagName'), result.eq(1).prop('tagName'), result.last().prop('tagName')];", [3, 'HTML', 'BODY', 'P']],
    ['should be able to filter down using the context', `const apple = $('.apple', 'ul');\nconst lis = $('li', 'ul');\nreturn [apple.length, lis.length];`, [1, 3], { html: 'fruits' }],
    ['should preserve root content', `// Root should not be overwritten\nconst el = $('<div></div>');\nreturn [Object.is(el, el._root), $('li', 'ul').length];`, [false, 3], { html: 'fruits' }],
    ['should allow loading a pre-parsed DOM', null, null, { skip: "loads a DOM parsed by htmlparser2's parseDOM, a separate npm package" }],
    ['should allow loading a single element', null, null, { skip: "loads an element parsed by htmlparser2's parseDOM, a separate npm package" }],
    ['should render xml in html() when options.xml = true', `const str = '<MixedCaseTag UPPERCASEATTRIBUTE=""></MixedCaseTag>';\nconst q = cheerio.load(str, { xml: true });\nreturn [q('MixedCaseTag').get(0).tagName, q.html()];`, ['MixedCaseTag', '<MixedCaseTag UPPERCASEATTRIBUTE=""/>']],
    ['should render xml in html() when options.xml = true passed to html()', `return [$('MixedCaseTag').get(0).tagName, $.html(), $.html({ xml: true })];`, ['mixedcasetag', '<html><head></head><body><mixedcasetag uppercaseattribute=""></mixedcasetag></body></html>', '<html><head/><body><mixedcasetag uppercaseattribute=""/></body></html>'], { html: '<MixedCaseTag UPPERCASEATTRIBUTE=""></MixedCaseTag>' }],
    ['should respect options on the element level', `const str = '<!doctype html><html><head><title>Some test</title></head><body><footer><p>Copyright &copy; 2003-2014</p></footer></body></html>';\nconst domNotEncoded = cheerio.load(str, {\n  xml: { decodeEntities: false },\n});\nconst domEncoded = cheerio.load(str);\nreturn [domNotEncoded('footer').html(), domEncoded('footer').html()];`, ['<p>Copyright &copy; 2003-2014</p>', '<p>Copyright © 2003-2014</p>']],
    ['should use htmlparser2 if xml option is used', `const str = '<div></div>';\nconst dom = cheerio.load(str, null, false);\nreturn dom.html();`, '<div></div>'],
    ['should return a fully-qualified Function', `return $ instanceof Function;`, true, { html: '<div>' }],
  ] },
  { src: C, d: 'cheerio > .load > prototype extensions', html: '<div>', cases: [
    ['should honor extensions defined on `prototype` property', `$.prototype.myPlugin = function (...args) {\n  return {\n    context: this,\n    args,\n  };\n};\nconst $div = $('div');\nreturn [typeof $div.myPlugin, $div.myPlugin().context === $div, $div.myPlugin(1, 2, 3).args];`, ['function', true, [1, 2, 3]]],
    ['should honor extensions defined on `fn` property', `$.fn.myPlugin = function (...args) {\n  return {\n    context: this,\n    args,\n  };\n};\nconst $div = $('div');\nreturn [typeof $div.myPlugin, $div.myPlugin().context === $div, $div.myPlugin(1, 2, 3).args];`, ['function', true, [1, 2, 3]]],
    ['should isolate extensions between loaded functions', `const $a = cheerio.load('<div>');\nconst $b = cheerio.load('<div>');\n$a.prototype.foo = () => {};\nreturn $b('div').foo === undefined;`, true],
  ] },
  { src: C, d: 'cheerio > parse5 options', html: '', cases: [
    ['{scriptingEnabled: ???}', `// [default] scriptingEnabled: true - tag contains one text element
const withScripts = cheerio.load(noscript)('noscript');
const r = [withScripts.length, withScripts[0].children.length, withScripts[0].children[0].type];
// scriptingEnabled: false - content of noscript will parsed
const noScripts = cheerio.load(noscript, { scriptingEnabled: false })('noscript');
r.push(noScripts.length, noScripts[0].children.length, noScripts[0].children[0].type, noScripts[0].children[1].type, noScripts[0].children[1].name);
// scriptingEnabled: ??? - should acts as true
for (const val of [undefined, null, 0, '']) {
  const result = cheerio.load(noscript, { scriptingEnabled: val })('noscript');
  r.push([result.length, result[0].children.length, result[0].children[0].type]);
}
return r;`, [1, 1, 'text', 1, 2, 'comment', 'tag', 'a', [1, 1, 'text'], [1, 1, 'text'], [1, 1, 'text'], [1, 1, 'text']], { fx: 'noscript' }],
    ['{sourceCodeLocationInfo: ???}', `const r = [];
// Location data should not be present
for (const val of [undefined, null, 0, false, '']) {
  const result = cheerio.load(noscript, { sourceCodeLocationInfo: val })('noscript');
  r.push([result.length, 'sourceCodeLocation' in result[0]]);
}
// Location data should be present
for (const val of [true, 1, 'test']) {
  const result = cheerio.load(noscript, { sourceCodeLocationInfo: val })('noscript');
  r.push([result.length, 'sourceCodeLocation' in result[0], typeof result[0].sourceCodeLocation]);
}
return r;`, [[1, false], [1, false], [1, false], [1, false], [1, false], [1, true, 'object'], [1, true, 'object'], [1, true, 'object']], { fx: 'noscript' }],
  ] },

  { src: L, d: '.load', html: '', cases: [
    ['(html) : should retain original root after creating a new node', `const before = $('body').length;\n$('<script>');\nreturn [before, $('body').length];`, [1, 1], { html: '<body><ul id="fruits"></ul></body>' }],
    ['(html) : should handle lowercase tag options', `const q = cheerio.load('<BODY><ul id="fruits"></ul></BODY>', {\n  xml: { lowerCaseTags: true },\n});\nreturn q.html();`, '<body><ul id="fruits"/></body>'],
    ['(html) : should handle xml tag option', `const q = cheerio.load('<body><script><foo></script></body>', {\n  xml: true,\n});\nreturn q('script')[0].children[0].type;`, 'tag'],
    ['(buffer) : should accept a buffer', null, null, { skip: "loads a Node Buffer, which a spider's VM does not have" }],
  ] },

  { src: D, d: 'deprecated APIs > cheerio module', cases: [['(all 11 tests)', null, null, { skip: notListed('the module-level parseHTML, merge, contains and root') }]] },
  { src: D, d: 'deprecated APIs > Cheerio function', html: 'fruits', cases: [
    ['.load', `const $2 = $.load('<div><p>Some <a>text</a>.</p></div>');\nreturn $2('a').length;`, 1],
  ] },
  { src: D, d: 'deprecated APIs > Cheerio function > .html - deprecated API', html: 'fruits', cases: [
    ['() : of empty cheerio object should return null', `// The spec calls the empty fixture document: cheerio().\nreturn $().html();`, null, { html: '' }],
    ['(selector) : should return the outerHTML of the selected element', `return $.html('.pear');`, '<li class="pear">Pear</li>'],
  ] },
  { src: D, d: 'deprecated APIs > Cheerio function > .xml  - deprecated API', cases: [['() :  renders XML', null, null, { skip: notListed('$.xml') + ' (and it is about xmlMode)' }]] },
  { src: D, d: 'deprecated APIs > Cheerio function > .text  - deprecated API', cases: [
    ['(cheerio object) : should return the text contents of the specified elements', `return $.text($('a'));`, 'This is content.', { html: '<a>This is <em>content</em>.</a>' }],
    ['(cheerio object) : should omit comment nodes', `return $.text($('a'));`, 'This is  not a comment.', { html: '<a>This is <!-- a comment --> not a comment.</a>' }],
    ['(cheerio object) : should include text contents of children recursively', `return $.text($('a'));`, textDeepWant, { html: textDeep }],
    ['() : should return the rendered text content of the root', `return $.text();`, textDeepWant, { html: textDeep }],
    ['(cheerio object) : should not omit script tags', `return $.text();`, 'console.log("test")', { html: '<script>console.log("test")</script>' }],
    ['(cheerio object) : should omit style tags', `return $.text();`, '.cf-hidden { display: none; }', { html: '<style type="text/css">.cf-hidden { display: none; }</style>' }],
  ] },
  { src: 'src/index.spec.ts', d: 'loadBuffer, stringStream, decodeStream, fromURL', cases: [['(all 14 tests)', null, null, { skip: notListed('loadBuffer, stringStream, decodeStream and fromURL') + '; they need Node streams, Buffers or a server' }]] },
  { src: 'src/__tests__/xml.spec.ts', d: 'render', cases: [['(all 7 tests)', null, null, { skip: 'they are about xmlMode documents and $.xml(); $ parses HTML like a browser' }]] },
  { src: 'src/utils.spec.ts', d: 'utils', cases: [['(all 4 tests)', null, null, { skip: "they test cheerio's internal helpers, not the $ API" }]] },
  { src: 'src/parse.spec.ts', d: 'parse', cases: [['(all 35 tests)', null, null, { skip: "they test cheerio's internal parse() and DOM objects, not the $ API" }]] },
];
