// The .html and .text tests of cheerio's src/api/manipulation.spec.ts (cheeriojs/cheerio@808f845)
// as cases; see gen.mjs. Only these two describe blocks are ported: .html() and .text() are
// among the methods issue 31 asks for, the file's other methods (wrap, append, remove...) are not.
const P = '$(...)';
const fruitsVar = "const $fruits = $('#fruits');\n";

export default [
  { d: `${P} > .html`, html: 'fruits', cases: [
    ['() : should get the innerHTML for an element', fruitsVar + `return $fruits.html();`, '<li class="apple">Apple</li><li class="orange">Orange</li><li class="pear">Pear</li>'],
    ['() : should get innerHTML even if its just text', `return $('.pear', '<li class="pear">Pear</li>').html();`, 'Pear'],
    ['() : should return empty string if nothing inside', `return $('li', '<li></li>').html();`, ''],
    ['(html) : should set the html for its children', fruitsVar + `$fruits.html('<li class="durian">Durian</li>');\nreturn $fruits.html();`, '<li class="durian">Durian</li>'],
    ['(html) : should add new elements for each element in selection', `const $fruits = $('li');\n$fruits.html('<li class="durian">Durian</li>');\nconst same = [];\n$fruits.each(function () {\n  same.push($(this).children().parent().get(0) === this);\n});\nreturn same;`, [true, true, true]],
    ['(html) : should skip text nodes', `const $text = cheerio.load(mixedText);\nconst $body = $text($text('body')[0].children);\n$body.html('test');\nreturn $text('body').html();`, '<a>test</a>TEXT<b>test</b>', { fx: 'mixedText' }],
    ['(elem) : should set the html for its children with element', fruitsVar + `$fruits.html($('<li class="durian">Durian</li>'));\nreturn $fruits.html();`, '<li class="durian">Durian</li>'],
    ['(elem) : should move the passed element (#940)', fruitsVar + `$('.apple').html($('.orange'));\nreturn $fruits.html();`, '<li class="apple"><li class="orange">Orange</li></li><li class="pear">Pear</li>'],
    ['() : should allow element reinsertion', null, null, { skip: 'reinserts with .replaceWith, which issue 31 does not list' }],
    ['(script value) : should add content as text', `const $data = '<a><b>';\nconst $script = $('<script>').html($data);\nreturn [$script.length, $script[0].type, $script[0].name, $script[0].children.length, $script[0].children[0].type, $script[0].children[0].data];`, [1, 'script', 'script', 1, 'text', '<a><b>']],
  ] },
  { d: `${P} > .toString`, cases: [['(all 4 tests)', null, null, { skip: '.toString is not among the methods issue 31 asks for' }]] },
  { d: `${P} > .text`, html: 'fruits', cases: [
    ['() : gets the text for a single element', `return $('.apple').text();`, 'Apple'],
    ['() : combines all text from children text nodes', `return $('#fruits').text();`, 'AppleOrangePear'],
    ['(text) : sets the text for the child node', `$('.apple').text('Granny Smith Apple');\nreturn $('.apple')[0].childNodes[0].data;`, 'Granny Smith Apple'],
    ['(text) : inserts separate nodes for all children', `$('li').text('Fruits');\nconst same = [];\n$('li').each(function () {\n  same.push(this.childNodes[0].parentNode === this);\n});\nreturn same;`, [true, true, true]],
    ['(text) : should create a Node with the DOM level 1 API', `const $apple = $('.apple');\n$apple.text('anything');\nconst textNode = $apple[0].childNodes[0];\nreturn [textNode.parentNode === $apple[0], textNode.nodeType, textNode.data];`, [true, 3, 'anything']],
    ['(html) : should skip text nodes', `const $text = cheerio.load(mixedText);\nconst $body = $text($text('body')[0].children);\n$body.text('test');\nreturn $text('body').html();`, '<a>test</a>TEXT<b>test</b>', { fx: 'mixedText' }],
    ['should allow functions as arguments', `const calls = [];\n$('.apple').text((idx, content) => {\n  calls.push([idx, content]);\n  return 'whatever mate';\n});\nreturn [calls, $('.apple')[0].childNodes[0].data];`, [[[0, 'Apple']], 'whatever mate']],
    ['should allow functions as arguments for multiple elements', `$('li').text((idx) => \`text\${idx}\`);\nconst data = [];\n$('li').each(function (idx) {\n  data.push(this.childNodes[0].data === \`text\${idx}\`);\n});\nreturn data;`, [true, true, true]],
    ['should decode special chars', `return $('<p>M&amp;M</p>').text();`, 'M&M'],
    ['should work with special chars added as strings', `return $('<p>M&M</p>').text();`, 'M&M'],
    ['should turn passed values to strings', `$('.apple').text(1);\nreturn $('.apple')[0].childNodes[0].data;`, '1'],
    ['( undefined ) : should act as an accessor', `const $div = $('<div>test</div>');\nreturn [typeof $div.text(undefined), $div.text()];`, ['string', 'test']],
    ['( "" ) : should convert to string', `const $div = $('<div>test</div>');\nreturn $div.text('').text();`, ''],
    ['( null ) : should convert to string', `return $('<div>').text(null).text();`, 'null'],
    ['( 0 ) : should convert to string', `return $('<div>').text(0).text();`, '0'],
    ['(str) should encode then decode unsafe characters', `const $apple = $('.apple');\n$apple.text('blah <script>alert("XSS!")</script> blah');\nconst r = [$apple[0].childNodes[0].data, $apple.text()];\n$apple.text('blah <script>alert("XSS!")</script> blah');\nreturn r.concat([$apple.html().includes('<script>alert("XSS!")</script>')]);`, ['blah <script>alert("XSS!")</script> blah', 'blah <script>alert("XSS!")</script> blah', false]],
  ] },
];
