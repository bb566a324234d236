/** Charts as files: the SVG as drawn, or a PNG rendered from it at twice the size. */

export function downloadBlob(blob: Blob, filename: string): void {
  const url = URL.createObjectURL(blob);
  const a = document.createElement('a');
  a.href = url;
  a.download = filename;
  a.rel = 'noopener';
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

/** Height of the title band an exported chart gets above it. */
export const TITLE_BAND = 30;

/**
 * A standalone SVG document of `svg`, on a white background, with `title` (which names the run
 * or match) above it: a chart file read on its own says what it shows.
 */
export function svgDocument(svg: SVGSVGElement, title?: string): { text: string; width: number; height: number } {
  const clone = svg.cloneNode(true) as SVGSVGElement;
  const width = Number(svg.getAttribute('width')) || svg.clientWidth || 600;
  const band = title ? TITLE_BAND : 0;
  const height = (Number(svg.getAttribute('height')) || svg.clientHeight || 300) + band;
  if (title) {
    const ns = 'http://www.w3.org/2000/svg';
    const body = document.createElementNS(ns, 'g');
    body.setAttribute('transform', `translate(0,${band})`);
    while (clone.firstChild) body.append(clone.firstChild);
    clone.append(body);
    const heading = document.createElementNS(ns, 'text');
    heading.setAttribute('x', '4');
    heading.setAttribute('y', '19');
    heading.setAttribute('font-size', '14');
    heading.setAttribute('font-weight', '600');
    heading.setAttribute('class', 'export-title');
    heading.textContent = title;
    clone.append(heading);
  }
  clone.setAttribute('xmlns', 'http://www.w3.org/2000/svg');
  clone.setAttribute('width', String(width));
  clone.setAttribute('height', String(height));
  clone.setAttribute('viewBox', `0 0 ${width} ${height}`);
  const bg = document.createElementNS('http://www.w3.org/2000/svg', 'rect');
  bg.setAttribute('width', '100%');
  bg.setAttribute('height', '100%');
  bg.setAttribute('fill', '#ffffff');
  clone.insertBefore(bg, clone.firstChild);
  return { text: `<?xml version="1.0" encoding="UTF-8"?>\n${new XMLSerializer().serializeToString(clone)}`, width, height };
}

export function downloadSvg(svg: SVGSVGElement, name: string, title?: string): void {
  downloadBlob(new Blob([svgDocument(svg, title).text], { type: 'image/svg+xml' }), `${name}.svg`);
}

export async function downloadPng(svg: SVGSVGElement, name: string, title?: string, scale = 2): Promise<void> {
  const { text, width, height } = svgDocument(svg, title);
  const url = URL.createObjectURL(new Blob([text], { type: 'image/svg+xml' }));
  try {
    const img = new Image();
    await new Promise<void>((resolve, reject) => {
      img.onload = () => resolve();
      img.onerror = () => reject(new Error('the chart could not be rendered as an image'));
      img.src = url;
    });
    const blob = encodePng(img, width, height, scale);
    downloadBlob(blob, `${name}.png`);
  } finally {
    URL.revokeObjectURL(url);
  }
}

/**
 * The image drawn at `scale` and encoded as PNG, synchronously. Not `canvas.toBlob` (nor
 * OffscreenCanvas's `convertToBlob`): Chromium encodes those in idle time and, while the app
 * keeps the main thread busy, waits up to a second for an idle period before it starts —
 * measured 1,013 ms of a 1,160 ms export whose encoding itself takes tens of milliseconds.
 */
function encodePng(img: HTMLImageElement, width: number, height: number, scale: number): Blob {
  const canvas = document.createElement('canvas');
  canvas.width = width * scale;
  canvas.height = height * scale;
  const ctx = canvas.getContext('2d');
  if (!ctx) throw new Error('this browser has no 2D canvas');
  ctx.scale(scale, scale);
  ctx.drawImage(img, 0, 0, width, height);
  const data = canvas.toDataURL('image/png');
  const binary = atob(data.slice(data.indexOf(',') + 1));
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return new Blob([bytes], { type: 'image/png' });
}
