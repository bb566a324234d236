/** A term on screen with its definition from the glossary as a tooltip (hover, or focus by keyboard). */
import type { ReactNode } from 'react';
import { GLOSSARY } from '../glossary/glossary';
import type { GlossaryTerm } from '../glossary/glossary';

export function Term({ term, children }: { term: GlossaryTerm; children?: ReactNode }) {
  return (
    <abbr className="term" title={GLOSSARY[term]} tabIndex={0} data-term={term}>
      {children ?? term}
    </abbr>
  );
}
