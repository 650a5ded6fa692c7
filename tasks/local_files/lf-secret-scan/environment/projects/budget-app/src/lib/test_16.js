view beta value test model value alpha cache parse
model cache parse view config render render view
cache cache build render view index index parse index
view cache user view alpha render cache beta index
parse alpha cache value value value view test
