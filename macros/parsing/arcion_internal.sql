{#-
    Arcion's internal CDC format, the files its Replicant writes to S3 (CSV or JSON;
    ../shared/formats/arcion-internal-cdc-csv-json.md). Both carry, per changed row:

      opType           I, U, D
      cursor           JSON text: MySQL-style {timestamp, log, position, logSeqNum, ...} or
                       {timestamp, dscId, mutId, partNum, ...}
      NEW / OLD        the after and before values (JSON: `after` / `before`)
      EXISTS           per column 0 (in neither: absent, the column keeps its value), 1 (in
                       NEW), 2 (in OLD), 3 (in both). A null with a non-zero EXISTS is a real
                       null; with 0 it means nothing.

    An UPDATE carries the SET columns in NEW and the WHERE columns in OLD: the key comes from
    OLD when NEW does not set it (cdc_typed_changes keys that way), and a key that NEW sets to
    another value is a key change (delete of the old key, the whole row moved to the new one:
    the staging models are listed in var cdc_partial_image_staging_models).

    Change sequence: [1, log file number, position, logSeqNum] or [1, dscId, mutId, partNum]
    (a missing logSeqNum or partNum counts as 0); a CSV snapshot row (no cursor) is [0, 0, 0, 0],
    before every change of the log. A cursor of neither shape is quarantined (invalid_cursor)
    with the record's text.
-#}

{% macro arcion_internal_operation(op_type) -%}
    {#- What an opType does: insert, update, delete; null for any other code. -#}
    case upper(trim({{ op_type }}))
        when 'I' then 'insert'
        when 'U' then 'update'
        when 'D' then 'delete'
    end
{%- endmacro %}


{% macro arcion_internal_cursor(cursor_text) -%}
    {#- The cursor's JSON text as a struct of the fields the change sequence and commit time need (numbers kept as their text). -#}
    from_json(
        {{ cursor_text }},
        'struct<`timestamp`: string, log: string, position: string, logSeqNum: string, dscId: string, mutId: string, partNum: string>'
    )
{%- endmacro %}


{% macro arcion_internal_change_sequence(cursor) -%}
    {#-
        [1, log file number, position, logSeqNum] for a MySQL-style cursor (the digits that end
        `log`: log-bin.000010 is 10), [1, dscId, mutId, partNum] for the other shape; null for
        a cursor of neither shape (every part a whole number of at most 18 digits).
    -#}
    case
        when {{ cursor }}.log rlike '(^|[^0-9])[0-9]{1,18}$'
            and {{ cursor }}.position rlike '^[0-9]{1,18}$'
            and coalesce({{ cursor }}.logSeqNum, '0') rlike '^[0-9]{1,18}$'
            then array(
                1,
                try_cast(regexp_extract({{ cursor }}.log, '([0-9]{1,18})$', 1) as bigint),
                try_cast({{ cursor }}.position as bigint),
                try_cast(coalesce({{ cursor }}.logSeqNum, '0') as bigint)
            )
        when {{ cursor }}.dscId rlike '^[0-9]{1,18}$'
            and {{ cursor }}.mutId rlike '^[0-9]{1,18}$'
            and coalesce({{ cursor }}.partNum, '0') rlike '^[0-9]{1,18}$'
            then array(
                1,
                try_cast({{ cursor }}.dscId as bigint),
                try_cast({{ cursor }}.mutId as bigint),
                try_cast(coalesce({{ cursor }}.partNum, '0') as bigint)
            )
    end
{%- endmacro %}


{% macro arcion_internal_commit_timestamp(cursor) -%}
    {#- The cursor's `timestamp` (epoch milliseconds, the time the query ran at the source). -#}
    {{ cdc_timestamp_from_epoch('try_cast(' ~ cursor ~ '.`timestamp` as bigint)', 'millis') }}
{%- endmacro %}


{% macro _arcion_internal_exists_flags_valid(flags_expr) -%}
    {#- Every EXISTS flag of array<string> flags_expr is 0, 1, 2 or 3. -#}
    forall({{ flags_expr }}, exists_flag -> coalesce(trim(exists_flag) in ('0', '1', '2', '3'), false))
{%- endmacro %}


{% macro _arcion_internal_value(text_expr) -%}
    {#- One value as a row image holds it: its text, or a JSON null. -#}
    coalesce(cast({{ text_expr }} as variant), parse_json('null'))
{%- endmacro %}


{#- ============================== JSON ============================== -#}

{% macro arcion_internal_json_records(landed_relation, flavour) %}
    {#-
        The staging query of Arcion internal JSON files (one JSON object per line): landed
        records in, canonical change records out (cdc_record_columns), one row per object.
        Every value is a string and the string "null" stands for null; `exists` says which
        columns each image carries.
    -#}
    {%- set r = 'imaged_records' -%}
    {%- set m = r ~ '.message' -%}
    {%- set fields = {
        'classification': r ~ '.classification',
        'source_database': m ~ '.tableName.namespace.catalog',
        'source_schema': m ~ '.tableName.namespace.`schema`',
        'source_table': m ~ '.tableName.name',
        'operation': r ~ '.operation',
        'key_image': 'cast(null as map<string, variant>)',
        'before_image': r ~ '.before_image',
        'after_image': r ~ '.after_image',
        'field_schemas': cdc_plain_field_schemas([r ~ '.before_image', r ~ '.after_image']),
        'change_sequence': r ~ '.change_sequence',
        'commit_timestamp': arcion_internal_commit_timestamp(r ~ '.cursor'),
        'transaction_id': 'cast(null as string)',
    } -%}
    with

    parsed_records as (
        select
            landed.*,
            {{ cdc_parsed_message('landed', _arcion_internal_json_fields()) }} as message
        from {{ landed_relation }} as landed
    ),

    operations as (
        select
            parsed_records.*,
            {{ arcion_internal_operation('parsed_records.message.opType') }} as operation,
            {{ arcion_internal_cursor('parsed_records.message.cursor') }} as cursor
        from parsed_records
    ),

    sequenced_records as (
        select
            operations.*,
            {{ arcion_internal_change_sequence('operations.cursor') }} as change_sequence
        from operations
    ),

    classified_records as (
        select
            sequenced_records.*,
            {{ arcion_internal_json_classification('sequenced_records.message', 'sequenced_records.operation', 'sequenced_records.change_sequence') }}
                as classification
        from sequenced_records
    ),

    {#- the images of changes, built once, from the exists flags: 2 or 3 in before, 1 or 3 in after #}
    imaged_records as (
        select
            classified_records.*,
            if(
                classified_records.classification.outcome = 'change' and classified_records.operation in ('update', 'delete'),
                {{ _arcion_internal_json_image('classified_records.message.before', 'classified_records.message.`exists`', "('2', '3')") }},
                null
            ) as before_image,
            if(
                classified_records.classification.outcome = 'change' and classified_records.operation in ('insert', 'update'),
                {{ _arcion_internal_json_image('classified_records.message.after', 'classified_records.message.`exists`', "('1', '3')") }},
                null
            ) as after_image
        from classified_records
    )

    {{ cdc_record_columns(fields, flavour, r) }}
{% endmacro %}


{% macro arcion_internal_json_classification(message, operation, change_sequence) -%}
    {#-
        What an Arcion internal JSON object is: a change, or quarantined with a reason code.
        `operation` and `change_sequence` are arcion_internal_operation and
        arcion_internal_change_sequence over the message.
    -#}
    case
        when {{ message }}._corrupt_record is not null
            then {{ cdc_classification('quarantined', 'invalid_json') }}
        when {{ message }}.opType is null and {{ message }}.tableName is null
            then {{ cdc_classification('quarantined', 'unrecognized_message') }}
        when {{ operation }} is null
            then {{ cdc_classification('quarantined', 'unknown_operation') }}
        when {{ message }}.tableName.name is null
            then {{ cdc_classification('quarantined', 'missing_source_table') }}
        when {{ change_sequence }} is null
            then {{ cdc_classification('quarantined', 'invalid_cursor') }}
        when {{ message }}.`exists` is null
            then {{ cdc_classification('quarantined', 'missing_row_image') }}
        when not {{ _arcion_internal_exists_flags_valid('map_values(' ~ message ~ '.`exists`)') }}
            then {{ cdc_classification('quarantined', 'invalid_exists_flag') }}
        when {{ cdc_image_repeats_a_name(message ~ '.`exists`') }}
            or {{ cdc_image_repeats_a_name(message ~ '.before') }}
            or {{ cdc_image_repeats_a_name(message ~ '.after') }}
            then {{ cdc_classification('quarantined', 'duplicate_field_name') }}
        else {{ cdc_classification('change', none) }}
    end
{%- endmacro %}


{% macro _arcion_internal_json_image(values, exists, flags) -%}
    {#- A row image (map<string, variant>): the columns whose exists flag is in `flags`, each with its value ("null" and a missing value: a JSON null). -#}
    map_from_entries(transform(
        filter(map_entries({{ exists }}), column_exists -> trim(column_exists.value) in {{ flags }}),
        column_exists -> struct(column_exists.key, {{ _arcion_internal_value('nullif(' ~ values ~ '[column_exists.key], \'null\')') }})
    ))
{%- endmacro %}


{% macro _arcion_internal_json_fields() -%}
    tableName: struct<namespace: struct<catalog: string, `schema`: string>, name: string>, opType: string, cursor: string, before: map<string, string>, after: map<string, string>, `exists`: map<string, string>, operationcount: string
{%- endmacro %}


{#- ============================== CSV ============================== -#}

{% macro arcion_internal_csv_records(landed_relation, flavour) %}
    {#-
        The staging query of Arcion internal CSV files (landed by landed_csv_records: one record
        per CSV record), canonical change records out, one row per record. A file's folder is
        its table and the folder above it its database (<landing>/<database>/<table>/*.csv).
        Its column order is its header line when it has one (a first record whose name
        positions are all declared columns of the table: every field of a snapshot line, the
        first of every triplet of a realtime line), else the order the target's YAML declares.
        A record of X fields (X columns) is a snapshot row; of 3X + 3, a change.
    -#}
    {%- set r = 'imaged_records' -%}
    {%- set fields = {
        'classification': r ~ '.classification',
        'source_database': r ~ '.path_database',
        'source_schema': 'cast(null as string)',
        'source_table': r ~ '.path_table',
        'operation': r ~ '.operation',
        'key_image': 'cast(null as map<string, variant>)',
        'before_image': r ~ '.before_image',
        'after_image': r ~ '.after_image',
        'field_schemas': cdc_plain_field_schemas([r ~ '.before_image', r ~ '.after_image']),
        'change_sequence': r ~ '.change_sequence',
        'commit_timestamp': arcion_internal_commit_timestamp(r ~ '.cursor'),
        'transaction_id': 'cast(null as string)',
    } -%}
    with

    split_records as (
        select
            landed.*,
            {{ cdc_csv_fields(cdc_readable_value('landed')) }} as csv_fields,
            element_at(split(landed.landing_file, '/'), -3) as path_database,
            element_at(split(landed.landing_file, '/'), -2) as path_table
        from {{ landed_relation }} as landed
    ),

    {#- the file's first record, which may be its header line -#}
    first_records as (
        select
            split_records.*,
            {{ _arcion_internal_csv_declared_columns('split_records.path_database', 'split_records.path_table') }} as declared_columns,
            min(split_records.landing_position) over (partition by split_records.landing_file) as first_position,
            min_by(split_records.csv_fields, split_records.landing_position) over (partition by split_records.landing_file) as first_fields
        from split_records
    ),

    headed_records as (
        select
            first_records.*,
            {{ _arcion_internal_csv_header_columns('first_records.first_fields', 'first_records.declared_columns') }} as header_columns
        from first_records
    ),

    shaped_records as (
        select
            headed_records.*,
            coalesce(headed_records.header_columns, headed_records.declared_columns) as column_names,
            case
                when size(headed_records.csv_fields) = size(coalesce(headed_records.header_columns, headed_records.declared_columns))
                    then 'snapshot'
                when size(headed_records.csv_fields) = 3 * size(coalesce(headed_records.header_columns, headed_records.declared_columns)) + 3
                    then 'realtime'
            end as record_shape
        from headed_records
    ),

    operations as (
        select
            shaped_records.*,
            case shaped_records.record_shape
                when 'snapshot' then 'snapshot'
                when 'realtime' then {{ arcion_internal_operation('element_at(shaped_records.csv_fields, -3)') }}
            end as operation,
            if(
                shaped_records.record_shape = 'realtime',
                {{ arcion_internal_cursor('element_at(shaped_records.csv_fields, -2)') }},
                null
            ) as cursor,
            if(
                shaped_records.record_shape = 'realtime',
                transform(sequence(0, size(shaped_records.column_names) - 1), column_index -> shaped_records.csv_fields[3 * column_index + 2]),
                null
            ) as exists_flags
        from shaped_records
    ),

    sequenced_records as (
        select
            operations.*,
            if(
                operations.record_shape = 'snapshot',
                array(cast(0 as bigint), 0, 0, 0),
                {{ arcion_internal_change_sequence('operations.cursor') }}
            ) as change_sequence
        from operations
    ),

    classified_records as (
        select
            sequenced_records.*,
            {{ arcion_internal_csv_classification('sequenced_records') }} as classification
        from sequenced_records
    ),

    {#- the images of changes, built once: a snapshot row is a whole row; a change carries in
        its before image the columns flagged 2 or 3 (OLD), in its after image 1 or 3 (NEW) -#}
    imaged_records as (
        select
            classified_records.*,
            if(
                classified_records.classification.outcome = 'change' and classified_records.operation in ('update', 'delete'),
                {{ _arcion_internal_csv_image('classified_records', 1, "('2', '3')") }},
                null
            ) as before_image,
            case
                when classified_records.classification.outcome <> 'change' then null
                when classified_records.operation = 'snapshot'
                    then map_from_arrays(
                        classified_records.column_names,
                        transform(classified_records.csv_fields, csv_field -> {{ _arcion_internal_value('csv_field') }})
                    )
                when classified_records.operation in ('insert', 'update')
                    then {{ _arcion_internal_csv_image('classified_records', 0, "('1', '3')") }}
            end as after_image
        from classified_records
    )

    {{ cdc_record_columns(fields, flavour, r) }}
{% endmacro %}


{% macro arcion_internal_csv_classification(relation) -%}
    {#-
        What an Arcion internal CSV record (a row of the staging query's shaped records) is: a
        change (a snapshot row or a realtime change), the file's header line (control), or
        quarantined with a reason code.
    -#}
    case
        when {{ relation }}.csv_fields is null
            then {{ cdc_classification('quarantined', 'invalid_csv') }}
        when {{ relation }}.landing_position = {{ relation }}.first_position and {{ relation }}.header_columns is not null
            then {{ cdc_classification('control', 'header_line') }}
        when {{ relation }}.column_names is null
            then {{ cdc_classification('quarantined', 'unknown_column_order') }}
        when {{ relation }}.record_shape is null
            then {{ cdc_classification('quarantined', 'wrong_field_count') }}
        when {{ relation }}.operation is null
            then {{ cdc_classification('quarantined', 'unknown_operation') }}
        when {{ relation }}.record_shape = 'realtime' and not {{ _arcion_internal_exists_flags_valid(relation ~ '.exists_flags') }}
            then {{ cdc_classification('quarantined', 'invalid_exists_flag') }}
        when {{ relation }}.change_sequence is null
            then {{ cdc_classification('quarantined', 'invalid_cursor') }}
        else {{ cdc_classification('change', none) }}
    end
{%- endmacro %}


{% macro _arcion_internal_csv_image(relation, value_offset, flags) -%}
    {#- A row image of a realtime record: the columns whose EXISTS flag is in `flags`, with the value of the triplet at value_offset (0 NEW, 1 OLD). -#}
    map_from_entries(transform(
        filter(
            sequence(0, size({{ relation }}.column_names) - 1),
            column_index -> trim({{ relation }}.exists_flags[column_index]) in {{ flags }}
        ),
        column_index -> struct(
            {{ relation }}.column_names[column_index],
            {{ _arcion_internal_value(relation ~ '.csv_fields[3 * column_index + ' ~ value_offset ~ ']') }}
        )
    ))
{%- endmacro %}


{% macro _arcion_internal_csv_header_columns(first_fields, declared_columns) -%}
    {#-
        The column order of a file's header line, in the declared spelling: first_fields when
        every field is a declared column (a snapshot file's header), else the first field of
        every triplet when those all are (a realtime file's header: 3X + 3 names); null when
        the file has no header line (or its names repeat).
    -#}
    {%- set declared_spelling = "try_element_at(filter(" ~ declared_columns ~ ", declared_column -> lower(declared_column) = lower(trim(header_name))), 1)" -%}
    case
        when {{ first_fields }} is null or {{ declared_columns }} is null
            then null
        when size({{ first_fields }}) > 0
            and size(array_distinct(transform({{ first_fields }}, header_name -> lower(trim(header_name))))) = size({{ first_fields }})
            and forall({{ first_fields }}, header_name -> {{ declared_spelling }} is not null)
            then transform({{ first_fields }}, header_name -> {{ declared_spelling }})
        when size({{ first_fields }}) >= 6 and size({{ first_fields }}) % 3 = 0
            then if(
                forall(
                    sequence(0, size({{ first_fields }}) div 3 - 2),
                    column_index -> exists({{ declared_columns }}, declared_column -> lower(declared_column) = lower(trim({{ first_fields }}[3 * column_index])))
                )
                and size(array_distinct(transform(sequence(0, size({{ first_fields }}) div 3 - 2), column_index -> lower(trim({{ first_fields }}[3 * column_index])))))
                    = size({{ first_fields }}) div 3 - 1,
                transform(
                    sequence(0, size({{ first_fields }}) div 3 - 2),
                    column_index -> try_element_at(filter({{ declared_columns }}, declared_column -> lower(declared_column) = lower(trim({{ first_fields }}[3 * column_index]))), 1)
                ),
                null
            )
    end
{%- endmacro %}


{% macro _arcion_internal_csv_declared_columns(database_expr, table_expr) -%}
    {#-
        array<string>: the columns the registry declares for the table a CSV file's path names
        (database and table, any case; or matched by a target's table_pattern and
        database_pattern: shards share their columns), in declared order; null for a table no
        target names. Written at compile time from the marts' YAML, one branch per declared
        source.
    -#}
    {%- set branches = [] -%}
    {%- for target_table in cdc_target_tables() -%}
        {%- set column_names = [] -%}
        {%- for column in target_table.columns if not column.get('is_source_table') -%}
            {%- do column_names.append(cdc_sql_string(column.name)) -%}
        {%- endfor -%}
        {%- for source in target_table.sources -%}
            {%- if source.table -%}
                {%- set condition = 'lower(' ~ table_expr ~ ') = ' ~ cdc_sql_string(source.table) -%}
            {%- else -%}
                {%- set condition = table_expr ~ ' rlike ' ~ cdc_sql_string('(?i)^(?:' ~ source.table_pattern ~ ')$') -%}
            {%- endif -%}
            {%- if source.database -%}
                {%- set condition = condition ~ ' and lower(' ~ database_expr ~ ') = ' ~ cdc_sql_string(source.database) -%}
            {%- elif source.database_pattern -%}
                {%- set condition = condition ~ ' and ' ~ database_expr ~ ' rlike ' ~ cdc_sql_string('(?i)^(?:' ~ source.database_pattern ~ ')$') -%}
            {%- endif -%}
            {%- do branches.append('when ' ~ condition ~ ' then array(' ~ column_names | join(', ') ~ ')') -%}
        {%- endfor -%}
    {%- endfor -%}
    {%- if branches -%}
    case
        {{ branches | join('\n        ') }}
    end
    {%- else -%}
    cast(null as array<string>)
    {%- endif -%}
{%- endmacro %}
