// What every tablectl page's script builds its elements with (loaded before it):
// el(tag, attrs, ...kids) and words(text), the snake_case of a view in plain words.
"use strict";
function el(tag, attrs, ...kids) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (k === "class") node.className = v; else node.setAttribute(k, v);
  }
  for (const kid of kids) node.append(kid instanceof Node ? kid : String(kid));
  return node;
}
function words(text) { return String(text ?? "").replaceAll("_", " "); }
