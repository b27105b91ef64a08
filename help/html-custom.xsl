<?xml version="1.0" encoding="utf-8"?>
<!-- html-custom.xsl: what the guide's HTML (yelp-build html -x) adds to yelp-xsl's style:
     long lines of code and commands wrap inside their box instead of running out of it
     (a model file's "about" line is one long line), and a figure, made at the size it is
     shown (tools/help-figures), shrinks with the page on a narrower screen and never
     grows past its own pixels. -->
<xsl:stylesheet xmlns:xsl="http://www.w3.org/1999/XSL/Transform" version="1.0">
  <xsl:template name="html.css.custom">
pre, pre.contents, div.screen pre { white-space: pre-wrap; overflow-wrap: anywhere; }
img.media { max-width: 100%; height: auto; }
  </xsl:template>
</xsl:stylesheet>
