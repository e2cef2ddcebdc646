/** How the kit counts what it keeps in memory of a counterpart's messages: its webhook deliveries and the implementation's answers. */

/** A parsed JSON body can take twenty times its text in memory (`[{},{},…]`). */
export const PARSED_BODY_FACTOR = 24;

/** What a kept message costs beyond its headers and body: its record and the objects of its headers. */
export const MESSAGE_OVERHEAD = 2 * 1024;
