"""The print-and-play kit: which cards exist (`kit`), how they sit on a sheet (`layout`),
fixed strings in every language (`i18n`, `locale/`), and rendering them to PDF and PNG
(`render`, through the Jinja templates under templates/). Imports only `core`."""
