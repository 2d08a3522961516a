/**
 * The primary language subtag of a BCP-47 tag (or a POSIX locale), lower case: `en-US` and `en_GB`
 * give `en`; no tag gives ''. Callers choose what stands for an unknown language: the search index
 * stores `und`, the analytics store ''; the analytics store also drops surrounding spaces.
 */
export function primaryLanguage(tag: string | null | undefined): string {
  return (tag ?? '').split(/[-_]/)[0]!.toLowerCase();
}
