/**
 * paper.bib: the methods the tables use, each entry once, in a fixed order, and only those the
 * study's report has numbers of. A registered kind names its own (AnalysisKind.paperCitations).
 */
import { ANALYSIS_KINDS } from '../kinds/index';
import type { Report } from '../report';
import { hasPairStudy } from './tables';

const ENTRIES: Record<string, string> = {
  'krippendorff2004': `@book{krippendorff2004,
  author = {Krippendorff, Klaus},
  title = {Content Analysis: An Introduction to Its Methodology},
  edition = {2},
  publisher = {Sage},
  address = {Thousand Oaks, CA},
  year = {2004}
}`,
  'fleiss1971': `@article{fleiss1971,
  author = {Fleiss, Joseph L.},
  title = {Measuring nominal scale agreement among many raters},
  journal = {Psychological Bulletin},
  volume = {76},
  number = {5},
  pages = {378--382},
  year = {1971}
}`,
  'brennan1981': `@article{brennan1981,
  author = {Brennan, Robert L. and Prediger, Dale J.},
  title = {Coefficient kappa: Some uses, misuses, and alternatives},
  journal = {Educational and Psychological Measurement},
  volume = {41},
  number = {3},
  pages = {687--699},
  year = {1981}
}`,
  'cohen1960': `@article{cohen1960,
  author = {Cohen, Jacob},
  title = {A coefficient of agreement for nominal scales},
  journal = {Educational and Psychological Measurement},
  volume = {20},
  number = {1},
  pages = {37--46},
  year = {1960}
}`,
  'wilson1927': `@article{wilson1927,
  author = {Wilson, Edwin B.},
  title = {Probable inference, the law of succession, and statistical inference},
  journal = {Journal of the American Statistical Association},
  volume = {22},
  number = {158},
  pages = {209--212},
  year = {1927}
}`,
  'bradley1952': `@article{bradley1952,
  author = {Bradley, Ralph Allan and Terry, Milton E.},
  title = {Rank analysis of incomplete block designs: {I}. {T}he method of paired comparisons},
  journal = {Biometrika},
  volume = {39},
  number = {3/4},
  pages = {324--345},
  year = {1952}
}`,
  'spearman1904': `@article{spearman1904,
  author = {Spearman, Charles},
  title = {The proof and measurement of association between two things},
  journal = {The American Journal of Psychology},
  volume = {15},
  number = {1},
  pages = {72--101},
  year = {1904}
}`,
  'kendall1938': `@article{kendall1938,
  author = {Kendall, Maurice G.},
  title = {A new measure of rank correlation},
  journal = {Biometrika},
  volume = {30},
  number = {1/2},
  pages = {81--93},
  year = {1938}
}`,
  'kendall1945': `@article{kendall1945,
  author = {Kendall, Maurice G.},
  title = {The treatment of ties in ranking problems},
  journal = {Biometrika},
  volume = {33},
  number = {3},
  pages = {239--251},
  year = {1945}
}`,
  'efron1987': `@article{efron1987,
  author = {Efron, Bradley},
  title = {Better bootstrap confidence intervals},
  journal = {Journal of the American Statistical Association},
  volume = {82},
  number = {397},
  pages = {171--185},
  year = {1987}
}`,
  'itu-p800': `@techreport{itu-p800,
  author = {{ITU-T}},
  title = {Methods for subjective determination of transmission quality},
  type = {Recommendation},
  number = {P.800},
  institution = {International Telecommunication Union},
  address = {Geneva},
  year = {1996}
}`,
  'itu-bs1534': `@techreport{itu-bs1534,
  author = {{ITU-R}},
  title = {Method for the subjective assessment of intermediate quality level of audio systems},
  type = {Recommendation},
  number = {BS.1534-3},
  institution = {International Telecommunication Union},
  address = {Geneva},
  year = {2015}
}`,
};

/** The keys of paper.bib the report's numbers call for, in the order of ENTRIES. */
export function citedKeys(report: Report): string[] {
  const keys = new Set<string>();
  if (hasPairStudy(report)) {
    keys.add('krippendorff2004').add('fleiss1971').add('brennan1981');
    if (report.bradley_terry.systems.length) keys.add('bradley1952');
    if (report.judges.length) keys.add('cohen1960').add('wilson1927').add('spearman1904').add('kendall1938').add('kendall1945');
    if (report.bootstrap) keys.add('efron1987');
  }
  if (report.ratings) {
    keys.add('krippendorff2004').add('itu-p800');
  }
  const sections = report as unknown as Record<string, unknown>;
  for (const kind of ANALYSIS_KINDS) if (sections[kind.section] !== undefined) for (const k of kind.paperCitations ?? []) keys.add(k);
  return Object.keys(ENTRIES).filter((k) => keys.has(k));
}

export function paperBib(keys: readonly string[]): string {
  return keys.map((k) => ENTRIES[k]).join('\n\n') + '\n';
}
