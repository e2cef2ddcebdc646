// The version of a self-contained build: the package's version, then the date and time of the commit it
// was built from (UTC) and that commit. Debian compares versions part by part, numbers as numbers:
// builds of later commits sort higher (a hash alone sorts at random, and apt would refuse an upgrade),
// and all of them above the release they follow (`+`), below the next.
export function buildVersion(version, commitDate, commit) {
  const stamp = commitDate
    .toISOString()
    .replace(/\.\d+Z$/, '')
    .replace(/\D/g, '');
  return `${version}+git${stamp}.${commit}`;
}
