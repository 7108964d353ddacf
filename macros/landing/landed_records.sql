{#-
    Reading landed files as raw records. Every reader returns the same columns:
      landing_table, landing_file, landed_at, landing_position, record_value, record_key,
      kafka_topic, kafka_partition, kafka_offset, kafka_timestamp, unreadable_reason
    unreadable_reason (cdc_unreadable_reason) says why a record must not be parsed at all;
    a flavour parses cdc_readable_value(...) instead of the raw text, so that such a record
    is quarantined with that reason and never reaches a JSON parser.
    In an incremental run they read only files that the calling model has not ingested yet
    (see _cdc_new_landing_files); the filter is made of literals, so Spark skips the other
    files without opening them.
-#}

{% macro landed_json_lines(landing_relation) %}
    {#-
        One raw record per non-blank line of every JSON-lines file (one message per line; a
        line ends at LF or CRLF). Split at the LF alone, then one trailing CR is dropped: a
        one-character separator is split without a regular expression (measured on 1.1M
        Debezium lines: 2.0 s against 6.7 s for the pattern CR?LF).
    -#}
    {{ _cdc_text_file_records(landing_relation, "split(landed_files.value, '\\n')") }}
{% endmacro %}


{% macro landed_csv_records(landing_relation) %}
    {#-
        One raw record per CSV record of every CSV file (RFC 4180 quoting: a quoted field may
        hold commas, doubled quotes and line breaks, so a record may span lines). Records are
        split at the line breaks outside quotes; one trailing CR is dropped (CRLF files);
        blank lines are skipped. A quote left open runs to the end of the file: that rest is
        one record, which the flavour quarantines (invalid_csv). landing_position is the
        record's place in its file, from 1 (a header line is record 1). The fields are split by
        the flavour (cdc_csv_fields).
    -#}
    {{ _cdc_text_file_records(landing_relation, 'regexp_extract_all(landed_files.value, ' ~ _cdc_csv_record_pattern() ~ ', 0)') }}
{% endmacro %}


{% macro _cdc_text_file_records(landing_relation, split_expr) %}
    {#- The non-blank records of every text file (one row per file, `value`), split by split_expr
        (array<string> over landed_files.value), each without one trailing CR. -#}
    select
        {{ _cdc_file_record_columns(landing_relation, 'file_records', 'record_index', 'record_text') | indent(4) }}
        {#- Splitting a file replaces bytes that are not UTF-8 by U+FFFD (Spark splits Java
            strings), so a record is unreadable when it holds U+FFFD and its file is not valid
            UTF-8 (checked only for such records: the file is one long string). #}
        {{ cdc_unreadable_reason(
            'file_records.record_text',
            none,
            value_is_utf8="not contains(file_records.record_text, '\uFFFD') or is_valid_utf8(file_records.file_text)",
        ) }} as unreadable_reason
    from (
        select
            landed_files._metadata.file_path as landing_file,
            landed_files._metadata.file_modification_time as landed_at,
            landed_files.value as file_text,
            split_records.record_index,
            if(endswith(split_records.record_text, '\r'), left(split_records.record_text, length(split_records.record_text) - 1), split_records.record_text) as record_text
        from {{ landing_relation }} as landed_files
        lateral view posexplode({{ split_expr }}) split_records as record_index, record_text
        where
            true
            {{ _cdc_new_landing_files(landing_relation, 'landed_files') | indent(8) }}
    ) as file_records
    where
        file_records.record_text rlike '\\S'
{% endmacro %}


{% macro _cdc_csv_record_pattern() -%}
    {#- One CSV record: quoted parts (closed, or open to the end of the text) and unquoted characters
        other than LF; possessive quantifiers, so that a long field never recurses in Java's regex engine. -#}
    '(?:"(?:[^"]++|"")*+(?:"|\\z)|[^"\\n]++)++'
{%- endmacro %}


{% macro cdc_csv_fields(record_text) -%}
    {#-
        The fields of one CSV record as array<string>: an unquoted NULL is a null, a quoted
        field is its text with doubled quotes undone (a quoted "NULL" is the text NULL), any
        other field its text exactly. Null for a record that is not well-formed CSV (a quote
        inside an unquoted field, text after a closing quote, a quote left open).
    -#}
    if(
        {{ record_text }} rlike {{ _cdc_csv_well_formed_pattern() }},
        transform(
            regexp_extract_all(concat({{ record_text }}, ','), '("(?:[^"]++|"")*+"|[^,"]*+),', 1),
            csv_field -> case
                when csv_field = 'NULL' then null
                when startswith(csv_field, '"') then replace(substr(csv_field, 2, length(csv_field) - 2), '""', '"')
                else csv_field
            end
        ),
        null
    )
{%- endmacro %}


{% macro _cdc_csv_well_formed_pattern() -%}
    '^(?:"(?:[^"]++|"")*+"|[^,"]*+)(?:,(?:"(?:[^"]++|"")*+"|[^,"]*+))*+\\z'
{%- endmacro %}


{% macro landed_kafka_records(landing_relation, value_format='json') %}
    {#-
        One raw record per Kafka record (Spark's Kafka source schema, key as UTF-8 text). The
        value is UTF-8 JSON, or with value_format dts_avro one DTS Avro Record, which the
        python_udfs helper cdc_dts_avro_record_json turns into JSON text.
    -#}
    {#- cast: through Spark Connect the helper's text is a `string collate UTF8_BINARY`, which the
        staging table would keep, and a run in the dbt process on the same table would then see its
        `string` as a changed column type (dbt's on_schema_change stops the model) -#}
    {%- set value_text = 'cast(cdc_dts_avro_record_json(landed_records.value) as string)' if value_format == 'dts_avro' else 'cast(landed_records.value as string)' %}
    select
        '{{ landing_relation.identifier }}' as landing_table,
        landed_records._metadata.file_path as landing_file,
        landed_records._metadata.file_modification_time as landed_at,
        cast(landed_records._metadata.row_index + 1 as bigint) as landing_position,
        {{ value_text }} as record_value,
        cast(landed_records.key as string) as record_key,
        landed_records.topic as kafka_topic,
        landed_records.`partition` as kafka_partition,
        landed_records.`offset` as kafka_offset,
        landed_records.`timestamp` as kafka_timestamp,
        {#- the decoder's JSON is valid UTF-8 and shallow: only the key is checked then -#}
        {{ cdc_unreadable_reason(
            none if value_format == 'dts_avro' else value_text,
            'cast(landed_records.key as string)',
        ) }} as unreadable_reason
    from {{ landing_relation }} as landed_records
    where
        true
        {{ _cdc_new_landing_files(landing_relation, 'landed_records') }}
{% endmacro %}


{% macro landed_binary_files(landing_relation, value_format) %}
    {#-
        One raw record per record of every binary file, in file order (landing_position is the
        record's place in its file, from 1). Records of a binary file have no framing, so only
        a format whose python_udfs decoder splits them can be read this way: dts_avro (the DTS
        SDK's files: cdc_dts_avro_file_records) and parquet_export (one Parquet file of an
        hourly CDC export, read with its own schema, one JSON text per row:
        cdc_parquet_export_file_records).
    -#}
    {%- set decoder = cdc_binary_file_decoder(value_format, landing_relation.identifier) %}
    select
        {{ _cdc_file_record_columns(landing_relation, 'file_records', 'record_index', 'record_text') | indent(4) }}
        cast(null as string) as unreadable_reason
    from (
        select
            landed_files._metadata.file_path as landing_file,
            landed_files._metadata.file_modification_time as landed_at,
            split_records.record_index,
            {#- cast: a plain `string`, as for landed_kafka_records' helper text -#}
            cast(split_records.record_text as string) as record_text
        from {{ landing_relation }} as landed_files
        lateral view posexplode({{ decoder }}(landed_files.content)) split_records as record_index, record_text
        where
            true
            {{ _cdc_new_landing_files(landing_relation, 'landed_files') | indent(8) }}
    ) as file_records
{% endmacro %}


{% macro cdc_binary_file_decoder(value_format, landing_name) %}
    {#- The python_udfs helper that splits a binary file of value_format into records (JSON texts);
        fails for a format no helper splits. landing_name says where, in the message. -#}
    {%- set decoders = {'dts_avro': 'cdc_dts_avro_file_records', 'parquet_export': 'cdc_parquet_export_file_records'} -%}
    {%- if value_format not in decoders -%}
        {{ exceptions.raise_compiler_error(
            landing_name ~ ": a binary_files landing is read only as value_format "
            ~ decoders.keys() | sort | join(' or ') ~ " (a python_udfs helper splits its files); got '" ~ value_format ~ "'"
        ) }}
    {%- endif -%}
    {{ return(decoders[value_format]) }}
{% endmacro %}


{% macro _cdc_file_record_columns(landing_relation, relation_alias, index_column, value_column) -%}
    {#- The landed-record columns of a record split out of a file (a line, a binary record): its
        place in the file from 1, no Kafka coordinates. Ends with a comma: unreadable_reason follows. -#}
    '{{ landing_relation.identifier }}' as landing_table,
    {{ relation_alias }}.landing_file,
    {{ relation_alias }}.landed_at,
    cast({{ relation_alias }}.{{ index_column }} + 1 as bigint) as landing_position,
    {{ relation_alias }}.{{ value_column }} as record_value,
    cast(null as string) as record_key,
    cast(null as string) as kafka_topic,
    cast(null as int) as kafka_partition,
    cast(null as bigint) as kafka_offset,
    cast(null as timestamp) as kafka_timestamp,
{%- endmacro %}


{% macro cdc_unreadable_reason(value_expr, key_expr, value_is_utf8=none) -%}
    {#-
        Why a raw record must not be parsed, or null: its value or key is not valid UTF-8
        (invalid_utf8: parsing would replace those bytes and store an altered value), or its
        JSON nests deeper than cdc_max_json_depth (nesting_too_deep: Spark's parsers recurse
        once per level, and a deep enough record kills the JVM with a stack overflow).
        value_expr, key_expr: none when the landing has no such text (a file's record has no
        key): nothing is written for it. value_is_utf8: how to tell that the value is valid
        UTF-8, when the value text itself can no longer say (default: is_valid_utf8 of
        value_expr).
    -#}
    {%- set max_depth = var('cdc_max_json_depth') -%}
    {%- set texts = [value_expr, key_expr] | reject('none') | list -%}
    {%- if texts -%}
    case
        {%- if value_expr is not none %}
        when {{ value_expr }} is not null and not ({{ value_is_utf8 or 'is_valid_utf8(' ~ value_expr ~ ')' }})
            then 'invalid_utf8'
        {%- endif %}
        {%- if key_expr is not none %}
        when {{ key_expr }} is not null and not is_valid_utf8({{ key_expr }})
            then 'invalid_utf8'
        {%- endif %}
        when {% for text in texts %}{{ _cdc_json_deeper_than(text, max_depth) }}{{ ' or ' if not loop.last }}{% endfor %}
            then 'nesting_too_deep'
    end
    {%- else -%}
    cast(null as string)
    {%- endif %}
{%- endmacro %}


{% macro _cdc_json_deeper_than(text_expr, max_depth) -%}
    {#-
        Whether the JSON text nests objects and arrays deeper than max_depth, cheapest test
        first: a text with at most max_depth opening brackets cannot (counted as the bytes that
        replace removes: octet_length reads a length, where length counts characters; on 1.1M
        Debezium lines 3.4 s against 6.4 s, and translate measured three times slower); nor can one whose
        brackets (strings removed) are gone after removing the innermost pairs eight times
        (a wide schema envelope); what remains is counted bracket by bracket.
    -#}
    {%- set max_depth = max_depth | int -%}
    {#- the brackets outside strings (regular expressions in SQL literals: backslashes doubled) -#}
    {%- set brackets -%}
        regexp_replace(regexp_replace({{ text_expr }}, '"(?:[^"\\\\]|\\\\.)*"', ''), '[^\\[\\]{}]', '')
    {%- endset -%}
    {%- set innermost_pair -%} '\\[\\]|\\{\\}' {%- endset -%}
    {%- set outer_brackets = namespace(expr=brackets) -%}
    {%- for pass in range(8) -%}
        {%- set outer_brackets.expr = 'regexp_replace(' ~ outer_brackets.expr ~ ', ' ~ innermost_pair ~ ", '')" -%}
    {%- endfor -%}
    coalesce(
        octet_length({{ text_expr }}) - octet_length(replace(replace({{ text_expr }}, '{', ''), '[', '')) > {{ max_depth }}
        and octet_length({{ outer_brackets.expr }}) > {{ max_depth }}
        and aggregate(
            split({{ brackets }}, ''),
            named_struct('depth', 0, 'deepest', 0),
            (counted, bracket) -> named_struct(
                'depth', counted.depth + if(bracket in ('{', '['), 1, -1),
                'deepest', greatest(counted.deepest, counted.depth + if(bracket in ('{', '['), 1, -1))
            )
        ).deepest > {{ max_depth }},
        false
    )
{%- endmacro %}


{% macro cdc_readable_value(relation_alias, value_column='record_value') -%}
    {#- The raw text to parse: null for a record that cdc_unreadable_reason rules out. -#}
    if({{ relation_alias }}.unreadable_reason is null, {{ relation_alias }}.{{ value_column }}, null)
{%- endmacro %}


{% macro cdc_parsed_message(relation_alias, message_fields) -%}
    {#-
        The landed record's readable text (cdc_readable_value) parsed with one from_json into
        struct<message_fields, _corrupt_record: string>: _corrupt_record holds the text of a
        record that is not a JSON object of that shape.
    -#}
    from_json(
        {{ cdc_readable_value(relation_alias) }},
        'struct<{{ message_fields }}, _corrupt_record: string>',
        map('columnNameOfCorruptRecord', '_corrupt_record')
    )
{%- endmacro %}


{% macro cdc_landings_to_read(landing_relations) %}
    {#-
        Which of landing_relations (the landing sources of the calling staging model) this run
        reads: those holding a file the model has not ingested yet, asked with one probe that
        opens at most one new file per landing (the ingested files are skipped when Spark lists
        the folder). Only those are parsed: Spark pushes the parser into every branch of the
        union of landings, so each landing read costs one more plan and one more compiled
        parser. An empty list means the run has nothing to stage (see cdc_no_new_records; on a
        first run or full refresh, its table is then created in the staging contract's shape).
        At parse time and in a unit test (whose landings are fixtures, not tables), every
        landing.
    -#}
    {%- if not execute or model.resource_type == 'unit_test' -%}
        {{ return(landing_relations) }}
    {%- endif -%}
    {#- found at the start of the run, for a model whose table existed then -#}
    {%- set facts = cdc_new_work() -%}
    {%- if facts is not none and model.name in facts.landings_to_read and is_incremental() -%}
        {{ return(landing_relations | selectattr('identifier', 'in', facts.landings_to_read[model.name]) | list) }}
    {%- endif -%}
    {%- set probe -%}
        {%- for landing_relation in landing_relations %}
        select * from (
            select {{ loop.index0 }} as landing_index
            from {{ landing_relation }} as landed
            where true {{ _cdc_new_landing_files(landing_relation, 'landed') }}
            limit 1
        )
        {{- ' union all' if not loop.last }}
        {%- endfor %}
    {%- endset -%}
    {%- set found = run_query(probe).columns[0].values() -%}
    {%- set to_read = [] -%}
    {%- for landing_relation in landing_relations -%}
        {%- if loop.index0 in found -%}
            {%- do to_read.append(landing_relation) -%}
        {%- endif -%}
    {%- endfor -%}
    {{ return(to_read) }}
{% endmacro %}


{% macro cdc_landed_records(landing_relations, value_format='json') %}
    {#-
        The raw records of landing_relations, each read by the reader of its declared shape, as
        one union. value_format: what a record holds: json (UTF-8 JSON text: json_lines or
        kafka_records), csv (CSV records: csv_files), dts_avro (DTS Avro Records: kafka_records
        or binary_files, decoded to JSON text by a python_udfs helper) or parquet_export (rows
        of hourly export Parquet files: binary_files, decoded to JSON text by a helper).
    -#}
    {%- set formats_by_shape = {
        'json_lines': ['json'],
        'csv_files': ['csv'],
        'kafka_records': ['json', 'dts_avro'],
        'binary_files': ['dts_avro', 'parquet_export'],
    } -%}
    {%- if value_format not in ['json', 'csv', 'dts_avro', 'parquet_export'] -%}
        {{ exceptions.raise_compiler_error("cdc_landed_records: value_format is '" ~ value_format ~ "', expected json, csv, dts_avro or parquet_export") }}
    {%- endif -%}
    {%- if landing_relations | length == 0 -%}
        {{ exceptions.raise_compiler_error("cdc_landed_records: no landing relation given, expected at least one source") }}
    {%- endif -%}
    {%- set readers = {'json_lines': landed_json_lines, 'csv_files': landed_csv_records, 'kafka_records': landed_kafka_records, 'binary_files': landed_binary_files} -%}
    {%- for landing_relation in landing_relations %}
    {#- (not executing, a landing reads as the shape its format is read from first, which is what the unit tests'
        fixtures are named after; asked only when executing, because sqlfluff's templater lets a same-file macro's
        return escape its caller) #}
    {%- set shape = _cdc_landing_shape(landing_relation) if execute else ('csv_files' if value_format == 'csv' else 'json_lines') %}
    {%- if execute and value_format not in formats_by_shape[shape] -%}
        {{ exceptions.raise_compiler_error(
            "landing " ~ landing_relation.identifier ~ " has shape " ~ shape ~ ", which holds " ~ formats_by_shape[shape] | join(' or ')
            ~ "; the staging model reads " ~ value_format
        ) }}
    {%- endif %}
    {{ readers[shape](landing_relation, value_format) if shape in ['kafka_records', 'binary_files'] else readers[shape](landing_relation) }}
    {%- if not loop.last %}
    union all
    {%- endif %}
    {%- endfor %}
{% endmacro %}


{% macro cdc_no_new_records() -%}
    {#-
        The SQL of a run with nothing new to read: no rows, in the shape of the model's own
        table, so that the run writes nothing and plans no parser or typing (a staging model
        with no new landed file, the rejection log with nothing staged since its last check).
        A staging model's first run or full refresh with no landed file at all has no table to
        take the shape from: it gets the staging contract's (cdc_no_staged_records). It starts
        with cdc_nothing_new_marker(), which a post-hook can look for.
    -#}
    -- {{ cdc_nothing_new_marker() }}
    {%- if is_incremental() %}
    select * from {{ this }} where false
    {%- elif model.name in var('cdc_staging_models') %}
    {{ cdc_no_staged_records() }}
    {%- else %}
    {{ exceptions.raise_compiler_error(
        "cdc_no_new_records: " ~ model.name ~ " has no table yet to take its shape from; expected an incremental run"
        ~ " of an existing table, or a staging model (var cdc_staging_models)"
    ) }}
    {%- endif %}
{%- endmacro %}


{% macro cdc_no_staged_records() -%}
    {#-
        No records, in the columns of the staging contract (cdc_record_columns) over the
        landed-record columns every reader gives: what a staging model's table is created
        from when nothing has landed for it yet, instead of planning its parser over empty
        landings (on 2 cores, 0.5-4 s per flavour in a first run).
    -#}
    {%- set fields = {} -%}
    {%- for name in cdc_record_field_names() -%}
        {%- do fields.update({name: 'null'}) -%}
    {%- endfor %}
    with

    no_records as (
        select
            cast(null as string) as landing_table,
            cast(null as string) as landing_file,
            cast(null as timestamp) as landed_at,
            cast(null as bigint) as landing_position,
            cast(null as string) as record_value,
            cast(null as string) as record_key,
            cast(null as string) as kafka_topic,
            cast(null as int) as kafka_partition,
            cast(null as bigint) as kafka_offset,
            cast(null as timestamp) as kafka_timestamp,
            cast(null as string) as unreadable_reason,
            {{ cdc_classification('quarantined', none) }} as classification
        where false
    )

    {{ cdc_record_columns(fields, model.name, 'no_records') }}
{%- endmacro %}


{% macro cdc_nothing_new_marker() -%}
    cdc: nothing new to read
{%- endmacro %}


{% macro _cdc_new_landing_files(landing_relation, files_alias) %}
    {#-
        Files not yet ingested into the calling incremental model ({{ this }}), whatever their
        modification time: a file copied with its times preserved, a backfill or a late sink
        is read like any other. The ingested files are read once per run and given to Spark
        as literals, so it skips them when it lists the folder, without opening them. A run's
        rows become visible all at once (staging is partitioned by loaded_at and a partition
        is registered only after its files are written), so a file is either wholly ingested
        or not at all, even when a run is killed.
    -#}
    {%- if execute and this is not none and is_incremental() -%}
        {{ _cdc_files_not_in(files_alias, _cdc_ingested_files(landing_relation)) }}
    {%- endif -%}
{% endmacro %}


{% macro _cdc_files_not_in(files_alias, files) %}
    {#- The condition (after an `and`) that a file of `files_alias` is none of `files` (paths), as literals; nothing for no file. -#}
    {%- if files | length > 0 %}
            and {{ files_alias }}._metadata.file_path not in (
                {%- for file_path in files | sort %}
                {{ cdc_sql_string(file_path) }}{{ "," if not loop.last }}
                {%- endfor %}
            )
    {%- endif -%}
{% endmacro %}


{% macro _cdc_ingested_files(landing_relation) %}
    {#-
        The files of landing_relation already ingested into the calling model: found at the
        start of the run for every staging model (cdc_new_work), or else asked once per model
        and run (kept in the model's compile context: the probe of cdc_landings_to_read and the
        model's own SQL both need them).
    -#}
    {%- set facts = cdc_new_work() -%}
    {%- if facts is not none and model.name in facts.ingested_files -%}
        {{ return(facts.ingested_files[model.name].get(landing_relation.identifier, [])) }}
    {%- endif -%}
    {%- set asked = model.setdefault('_cdc_ingested_files', {}) -%}
    {%- if landing_relation.identifier not in asked -%}
        {%- set ingested_query -%}
            select distinct landing_file
            from {{ this }}
            where landing_table = '{{ landing_relation.identifier }}'
        {%- endset -%}
        {%- do asked.update({landing_relation.identifier: run_query(ingested_query).columns[0].values()}) -%}
    {%- endif -%}
    {{ return(asked[landing_relation.identifier]) }}
{% endmacro %}


{% macro _cdc_landing_shape(landing_relation) %}
    {#-
        The landing shape declared in the YAML of the source behind `landing_relation`. A unit
        test compiles without the project's sources in reach (its landings are fixture CTEs
        named after the source table), so there the shape is the one the table is named after,
        as every landing source of this project is.
    -#}
    {% if not execute %}
        {{ return('json_lines') }}
    {% endif %}
    {% set landing = cdc_landing_settings(landing_relation) %}
    {% if landing is none %}
        {% for shape in ['kafka_records', 'binary_files', 'csv_files'] if landing_relation.identifier.endswith(shape) %}
            {{ return(shape) }}
        {% endfor %}
        {{ return('json_lines') }}
    {% endif %}
    {{ return(landing.shape) }}
{% endmacro %}


{% macro cdc_landing_settings(landing_relation) %}
    {#-
        The meta.landing settings of the source behind `landing_relation` (validated by
        _landing_settings); none in a unit test, whose graph holds no sources. Fails for a
        relation that is not a landing source.
    -#}
    {% if model.resource_type == 'unit_test' %}
        {{ return(none) }}
    {% endif %}
    {% for source_node in graph.sources.values()
        if source_node.identifier == landing_relation.identifier and source_node.schema == landing_relation.schema %}
        {{ return(_landing_settings(source_node)) }}
    {% endfor %}
    {{ exceptions.raise_compiler_error(
        "landed_records: " ~ landing_relation ~ " is not a source with meta.landing {shape, path}"
    ) }}
{% endmacro %}
