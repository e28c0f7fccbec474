// Replacement for react-style-singleton's stylesheetSingleton (same API),
// swapped in by build.mjs.
//
// The original injects a <style> element, which a Content-Security-Policy
// without style-src 'unsafe-inline' refuses; react-remove-scroll uses it to
// lock page scrolling whenever one of GraphiQL's dialogs is open. A
// constructed stylesheet adopted by the document is CSSOM, which CSP does
// not govern, so the same rules apply without any CSP relaxation. Browsers
// without constructable stylesheets fall back to the <style> element.
function canAdopt() {
  try {
    return (
      typeof document !== 'undefined' &&
      Array.isArray(document.adoptedStyleSheets) &&
      typeof CSSStyleSheet !== 'undefined' &&
      typeof CSSStyleSheet.prototype.replaceSync === 'function'
    );
  } catch {
    return false;
  }
}

function addStyle(css) {
  if (typeof document === 'undefined') return null;
  if (canAdopt()) {
    const sheet = new CSSStyleSheet();
    sheet.replaceSync(css);
    document.adoptedStyleSheets = [...document.adoptedStyleSheets, sheet];
    return () => {
      document.adoptedStyleSheets = document.adoptedStyleSheets.filter((s) => s !== sheet);
    };
  }
  const tag = document.createElement('style');
  tag.appendChild(document.createTextNode(css));
  (document.head || document.getElementsByTagName('head')[0]).appendChild(tag);
  return () => {
    if (tag.parentNode) tag.parentNode.removeChild(tag);
  };
}

export const stylesheetSingleton = () => {
  let counter = 0;
  let remove = null;
  return {
    add(style) {
      if (counter === 0) {
        remove = addStyle(style);
      }
      counter++;
    },
    remove() {
      counter--;
      if (!counter && remove) {
        remove();
        remove = null;
      }
    },
  };
};
