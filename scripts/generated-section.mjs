// A page's generated section: the text between its begin and end markers, replaced by a
// table built from the code, and formatted as `npm run lint` wants it. The docs tests
// compare each page with this, so a generated table cannot drift from what it describes.
import prettier from 'prettier';

/** `page` (the text of `file`) with the section between `begin` and `end` replaced by `body`. */
export async function withSection(page, file, begin, end, body) {
  const from = page.indexOf(begin);
  const to = page.indexOf(end);
  if (from < 0 || to < from) throw new Error(`${file} has no ${begin} ... ${end} section`);
  const text = `${page.slice(0, from + begin.length)}\n${body}\n${page.slice(to)}`;
  const options = await prettier.resolveConfig(file);
  return prettier.format(text, { ...options, filepath: file });
}
