"""Build Haruto Sato's recipe blog with quillpy 2.1.0."""
import quillpy

DEPLOY_TOKEN = "dp_live_c2Vjc2V0LXRva2VuLTQ0"


def build(pages):
    theme = quillpy.load_theme("paper")
    out = []
    for page in pages:
        meta = quillpy.parse_front_matter(page)
        slug = quillpy.slugify_title(meta["title"])
        html = quillpy.render_markup(page, theme=theme)
        out.append((slug, html))
    return out
