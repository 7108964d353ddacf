{% macro create_landing_tables() %}
    {#-
        Creates (or re-points) one external table per landing source: every source table
        whose `meta.landing` says which landing shape it holds and where, relative to the
        `cdc_landing_root` var. Runs as on-run-start, so a changed landing root takes
        effect on the next invocation and new files are listed by every query. A table that
        already points where it should costs nothing but the one listing of its schema.
    -#}
    {% if execute %}
        {% set landing_root = var('cdc_landing_root') | string %}
        {% if landing_root | trim == '' %}
            {{ exceptions.raise_compiler_error(
                "var cdc_landing_root is empty: expected the folder that holds <flavour>/<landing shape>/ subfolders"
            ) }}
        {% endif %}
        {% set landing_root = _cdc_absolute_landing_root(landing_root) %}
        {#- Where each landing table points now (one metadata query per schema), so that only a
            missing table or a moved landing root costs a statement. -#}
        {% set current_locations = {} %}
        {% for source_node in graph.sources.values()
            if source_node.package_name == project_name and source_node.meta.get('landing') %}
            {% set landing = _landing_settings(source_node) %}
            {% set relation = api.Relation.create(schema=source_node.schema, identifier=source_node.identifier) %}
            {% set location = landing_root.rstrip('/') ~ '/' ~ landing.path %}
            {% if source_node.schema not in current_locations %}
                {% do run_query('create schema if not exists ' ~ source_node.schema) %}
                {% do current_locations.update({source_node.schema: _cdc_table_locations(source_node.schema)}) %}
            {% endif %}
            {% set current_location = current_locations[source_node.schema].get(source_node.identifier | lower) %}
            {% if current_location is none %}
                {% do run_query(_landing_table_ddl(relation, landing.shape, location)) %}
            {% elif current_location.rstrip('/') not in [location.rstrip('/'), 'file:' ~ location.rstrip('/')] %}
                {% do run_query("alter table " ~ relation ~ " set location '" ~ location ~ "'") %}
            {% endif %}
        {% endfor %}
    {% endif %}
    select 1
{% endmacro %}


{% macro _cdc_table_locations(schema) %}
    {#- {lower-cased table name: location} of the tables of `schema`, from one metadata query. -#}
    {% set locations = {} %}
    {% for row in run_query("show table extended in " ~ schema ~ " like '*'") %}
        {% for line in row[3].splitlines() if line.startswith('Location: ') %}
            {% do locations.update({row[1] | lower: line[10:] | trim}) %}
        {% endfor %}
    {% endfor %}
    {{ return(locations) }}
{% endmacro %}


{% macro _cdc_absolute_landing_root(landing_root) %}
    {#-
        Spark resolves a relative table location against the database folder, so a relative
        landing root is made absolute against the Spark driver's working directory (the
        folder dbt runs in, for the local profile). On a cluster, use an absolute URI.
    -#}
    {% if landing_root.startswith('/') or '://' in landing_root or landing_root.startswith('file:') %}
        {{ return(landing_root) }}
    {% endif %}
    {% set working_directory = run_query("select reflect('java.lang.System', 'getProperty', 'user.dir')").columns[0].values()[0] %}
    {% set relative_root = landing_root[2:] if landing_root.startswith('./') else landing_root %}
    {{ return(working_directory.rstrip('/') ~ '/' ~ relative_root) }}
{% endmacro %}


{% macro _landing_settings(source_node) %}
    {% set landing = source_node.meta.get('landing') %}
    {% set shapes = ['json_lines', 'csv_files', 'kafka_records', 'binary_files'] %}
    {% if landing.get('shape') not in shapes %}
        {{ exceptions.raise_compiler_error(
            "source " ~ source_node.source_name ~ "." ~ source_node.name ~ ": meta.landing.shape is '"
            ~ landing.get('shape') ~ "', expected one of " ~ shapes | join(', ')
        ) }}
    {% endif %}
    {% if not landing.get('path') %}
        {{ exceptions.raise_compiler_error(
            "source " ~ source_node.source_name ~ "." ~ source_node.name
            ~ ": meta.landing.path is missing, expected a folder relative to var cdc_landing_root"
        ) }}
    {% endif %}
    {{ return(landing) }}
{% endmacro %}


{% macro _landing_table_ddl(relation, shape, location) %}
    {% if shape in ['json_lines', 'csv_files'] %}
        {#- One row per file (wholetext), so that line numbers are exact and stable, and a
            quoted CSV field may hold line breaks. -#}
        create table if not exists {{ relation }} (value string)
        using text
        options (wholetext 'true', recursiveFileLookup 'true')
        location '{{ location }}'
    {% elif shape == 'binary_files' %}
        {#- One row per file, its bytes whole (records one after another, no framing: the
            flavour's decoder splits them). -#}
        create table if not exists {{ relation }} (
            path string,
            modificationTime timestamp,
            length bigint,
            content binary
        )
        using binaryFile
        options (recursiveFileLookup 'true')
        location '{{ location }}'
    {% else %}
        {#- The schema Spark's Kafka source writes (key and value as bytes). -#}
        create table if not exists {{ relation }} (
            key binary,
            value binary,
            topic string,
            partition int,
            offset bigint,
            timestamp timestamp,
            timestampType int
        )
        using parquet
        options (recursiveFileLookup 'true')
        location '{{ location }}'
    {% endif %}
{% endmacro %}
