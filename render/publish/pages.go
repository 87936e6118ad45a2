package publish

import (
	"fmt"
	"net/url"
	"strings"
)

// PagesBaseURL is the path a GitHub Pages site of the repository at remote
// is served under: "/REPO/" for a project site, "/" for the OWNER.github.io
// user or organisation site. remote is a clone URL in any of git's forms:
// https://github.com/OWNER/REPO(.git), git@github.com:OWNER/REPO.git,
// ssh://git@github.com/OWNER/REPO.git, git://github.com/OWNER/REPO.git.
func PagesBaseURL(remote string) (string, error) {
	owner, repo, err := githubRepo(remote)
	if err != nil {
		return "", err
	}
	if strings.EqualFold(repo, owner+".github.io") {
		return "/", nil
	}
	return "/" + repo + "/", nil
}

// githubRepo splits a github.com clone URL into owner and repository.
func githubRepo(remote string) (owner, repo string, err error) {
	var host, p string
	switch {
	case strings.Contains(remote, "://"):
		u, perr := url.Parse(remote)
		if perr != nil {
			return "", "", fmt.Errorf("remote %q: %w", remote, perr)
		}
		host, p = u.Hostname(), u.Path
	case strings.Contains(remote, ":") && !strings.HasPrefix(remote, "/"):
		// scp-like: [user@]host:path
		h, rest, _ := strings.Cut(remote, ":")
		if i := strings.LastIndex(h, "@"); i >= 0 {
			h = h[i+1:]
		}
		host, p = h, rest
	default:
		return "", "", fmt.Errorf("remote %q is not a GitHub URL; pass --base-url", remote)
	}
	if !strings.EqualFold(host, "github.com") && !strings.EqualFold(host, "www.github.com") {
		return "", "", fmt.Errorf("remote %q is not on github.com; pass --base-url", remote)
	}
	parts := strings.Split(strings.Trim(p, "/"), "/")
	if len(parts) != 2 || parts[0] == "" || parts[1] == "" {
		return "", "", fmt.Errorf("remote %q: want github.com/OWNER/REPO", remote)
	}
	repo = strings.TrimSuffix(parts[1], ".git")
	if repo == "" {
		return "", "", fmt.Errorf("remote %q: want github.com/OWNER/REPO", remote)
	}
	return parts[0], repo, nil
}

// PagesURL is the address the published site will have: https://CNAME/
// with a custom domain, else https://OWNER.github.io/REPO/ (or
// https://OWNER.github.io/ for the user site); "" when remote is not a
// GitHub URL.
func PagesURL(remote, cname string) string {
	if cname != "" {
		return "https://" + cname + "/"
	}
	owner, repo, err := githubRepo(remote)
	if err != nil {
		return ""
	}
	host := strings.ToLower(owner) + ".github.io"
	if strings.EqualFold(repo, host) {
		return "https://" + host + "/"
	}
	return "https://" + host + "/" + repo + "/"
}
