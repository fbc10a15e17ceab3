/**
 * One element inside an XMLTV `<programme>` as the reader keeps it: what the rich programme data
 * (programme-details.ts) is read from. Plain data, so the domain can interpret it without the
 * parser.
 */
export interface XmltvElement {
  readonly name: string;
  /** Attributes in document order, values as the XML parser normalised them. */
  readonly attributes: readonly (readonly [name: string, value: string])[];
  /** The element's own character data (not its children's), joined, untrimmed. */
  readonly text: string;
  readonly children: readonly XmltvElement[];
}

/** The value of an attribute, or undefined when the element has none by that name. */
export function attributeOf(element: XmltvElement, name: string): string | undefined {
  for (const [key, value] of element.attributes) if (key === name) return value;
  return undefined;
}
