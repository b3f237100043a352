// The built-in "cheerio" module: cheerio 1.x's API over jscrawl's parsed documents
// (`response.$`, `load(html)`). The tree is read-only: methods that modify it are absent.

declare module "cheerio" {
  /** A node of the tree, shaped as domhandler's (cheerio's nodes). */
  export interface Node {
    readonly type: "tag" | "script" | "style" | "text" | "comment" | "directive" | "root";
    /** 1 for elements (and a doctype), 3 for text, 8 for comments, 9 for the root. */
    readonly nodeType: number;
    readonly parent: ParentNode | null;
    readonly parentNode: ParentNode | null;
    readonly next: AnyNode | null;
    readonly nextSibling: AnyNode | null;
    readonly prev: AnyNode | null;
    readonly previousSibling: AnyNode | null;
    readonly startIndex: number | null;
    readonly endIndex: number | null;
  }
  /** An element or the root: a node with children. */
  export interface ParentNode extends Node {
    readonly children: AnyNode[];
    readonly childNodes: AnyNode[];
    readonly firstChild: AnyNode | null;
    readonly lastChild: AnyNode | null;
  }
  /** An element (type "tag", or "script" and "style" for those). */
  export interface Element extends ParentNode {
    readonly type: "tag" | "script" | "style";
    /** The tag name, lower case. */
    readonly name: string;
    readonly tagName: string;
    /** The attributes by name (an object without prototype). */
    readonly attribs: Record<string, string>;
    readonly namespace: string;
  }
  /** A text node. */
  export interface Text extends Node {
    readonly type: "text";
    readonly data: string;
  }
  /** A comment. */
  export interface Comment extends Node {
    readonly type: "comment";
    readonly data: string;
  }
  /** The doctype. */
  export interface ProcessingInstruction extends Node {
    readonly type: "directive";
    readonly name: "!doctype";
    readonly data: string;
  }
  /** The document itself ($.root()[0]). */
  export interface Document extends ParentNode {
    readonly type: "root";
  }
  export type AnyNode = Element | Text | Comment | ProcessingInstruction | Document;

  /** What filter(), not(), is(), closest()... accept: a selector, a test, nodes. */
  export type AcceptedFilters<T> = string | ((this: T, index: number, el: T) => unknown) | T | Cheerio<T>;

  /** A set of nodes (or of values, after map()). Indexable, iterable, with cheerio's methods. */
  export interface Cheerio<T> extends Iterable<T> {
    readonly length: number;
    readonly [index: number]: T;
    /** "[cheerio object]". */
    readonly cheerio: string;

    // Traversing
    /** The descendants matching the selector, scoped as cheerio scopes it; `> p` is relative. */
    find(selector?: string | Element | Cheerio<Element>): Cheerio<Element>;
    filter<S extends T>(match: (this: T, index: number, el: T) => el is S): Cheerio<S>;
    filter(match: AcceptedFilters<T>): Cheerio<T>;
    not(match: AcceptedFilters<T>): Cheerio<T>;
    is(match?: AcceptedFilters<T>): boolean;
    has(selector: string | Element): Cheerio<T>;
    closest(selector?: AcceptedFilters<Element>): Cheerio<Element>;
    parent(selector?: AcceptedFilters<Element>): Cheerio<Element>;
    parents(selector?: AcceptedFilters<Element>): Cheerio<Element>;
    parentsUntil(selector?: AcceptedFilters<Element> | null, filter?: AcceptedFilters<Element>): Cheerio<Element>;
    children(selector?: AcceptedFilters<Element>): Cheerio<Element>;
    contents(): Cheerio<AnyNode>;
    next(selector?: AcceptedFilters<Element>): Cheerio<Element>;
    nextAll(selector?: AcceptedFilters<Element>): Cheerio<Element>;
    nextUntil(selector?: AcceptedFilters<Element> | null, filter?: AcceptedFilters<Element>): Cheerio<Element>;
    prev(selector?: AcceptedFilters<Element>): Cheerio<Element>;
    prevAll(selector?: AcceptedFilters<Element>): Cheerio<Element>;
    prevUntil(selector?: AcceptedFilters<Element> | null, filter?: AcceptedFilters<Element>): Cheerio<Element>;
    siblings(selector?: AcceptedFilters<Element>): Cheerio<Element>;
    first(): Cheerio<T>;
    last(): Cheerio<T>;
    /** The node at index i (negative: from the end). */
    eq(i: number): Cheerio<T>;
    slice(start?: number, end?: number): Cheerio<T>;
    /** Calls fn with this = the node; returning false stops. */
    each(fn: (this: T, index: number, el: T) => void | boolean): Cheerio<T>;
    /** The values fn returns (null and undefined left out, arrays spread). */
    map<M>(fn: (this: T, index: number, el: T) => M[] | M | null | undefined): Cheerio<M>;
    toArray(): T[];
    get(): T[];
    get(i: number): T | undefined;
    index(selectorOrNeedle?: string | AnyNode | Cheerio<AnyNode>): number;
    add(other: string | AnyNode | AnyNode[] | Cheerio<AnyNode>, context?: string | AnyNode | Cheerio<AnyNode>): Cheerio<AnyNode>;
    addBack(selector?: string): Cheerio<AnyNode>;
    /** The set this one was made from. */
    end(): Cheerio<AnyNode>;

    // Attributes, text and HTML
    /** The text of every node and its descendants (comments left out). */
    text(): string;
    /** The first node's inner HTML, as cheerio writes it; null without one. */
    html(): string | null;
    /** The outer HTML of every node. */
    toString(): string;
    attr(name: string): string | undefined;
    attr(): Record<string, string> | undefined;
    /** href and src resolved against the document's URL (cheerio's baseURI). */
    prop(name: "href" | "src"): string | undefined;
    prop(name: "tagName" | "nodeName"): string | undefined;
    prop(name: "innerHTML" | "outerHTML" | "innerText" | "textContent"): string | null;
    prop(name: string): any;
    data(): Record<string, unknown>;
    data(name: string): unknown;
    data(name: string, value: unknown): Cheerio<T>;
    data(values: Record<string, unknown>): Cheerio<T>;
    val(): string | string[] | undefined;
    hasClass(className: string): boolean;
  }

  /** The function load() returns: $(selector, context?), $(node), $(nodes), $("<p>html</p>"). */
  export interface CheerioAPI {
    (selector: string, context?: string | AnyNode | AnyNode[] | Cheerio<AnyNode> | null): Cheerio<Element>;
    <T extends AnyNode>(nodes: T | T[] | Cheerio<T>): Cheerio<T>;
    (selector?: null): Cheerio<AnyNode>;
    /** The whole document's HTML, or the outer HTML of the matches of a selector. */
    html(selector?: string | AnyNode | AnyNode[] | Cheerio<AnyNode>): string;
    /** The text of the whole document (or of the nodes). */
    text(nodes?: AnyNode | AnyNode[] | Cheerio<AnyNode>): string;
    root(): Cheerio<Document>;
    load: typeof load;
    /** The prototype of Cheerio objects. */
    fn: Cheerio<any>;
  }

  export interface CheerioOptions {
    /** What prop("href") and prop("src") resolve against. */
    baseURI?: string | { toString(): string };
    /** parse5's option, true by default: <noscript> holds raw text. */
    scriptingEnabled?: boolean;
    /** Not supported: throws (use response.xpath or new Selector({ text, type: "xml" })). */
    xml?: false;
    xmlMode?: false;
  }

  /** Parses HTML as a document (the implied html, head, body and tbody added, as parse5), or
   * a fragment when isDocument is false. */
  export function load(content: string, options?: CheerioOptions | null, isDocument?: boolean): CheerioAPI;
  /** Whether contained is inside container (not the same node). */
  export function contains(container: AnyNode, contained: AnyNode): boolean;
  /** Appends the items of arr2 to arr1 and returns arr1. */
  export function merge<T>(arr1: ArrayLike<T> & { length: number }, arr2: ArrayLike<T>): ArrayLike<T>;
}
