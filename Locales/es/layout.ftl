# El marco de cada página: navegación, aviso de confirmación, opciones del pie.

nav-label = Principal
nav-skip = Ir al contenido
nav-gallery = Galería
nav-albums = Álbumes
nav-links = Enlaces
nav-trash = Papelera
nav-admin = Administración
nav-sign-out = Cerrar sesión
nav-sign-in = Iniciar sesión
nav-sign-up = Crear cuenta
banner-confirm-email = Confirma tu dirección de correo con el enlace que enviamos a:
banner-send-again = Enviarlo de nuevo
footer-language = Idioma
footer-theme = Colores
footer-apply = Aplicar
theme-system = Como mi dispositivo
theme-light = Claro
theme-dark = Oscuro

status-400 = Solicitud no válida
status-401 = Se necesita permiso
status-403 = No permitido
status-404 = No encontrado
status-405 = No permitido aquí
status-408 = Demasiado lento
status-409 = Conflicto
status-410 = Ya no existe
status-413 = Demasiado grande
status-415 = Tipo no admitido
status-416 = Fuera de rango
status-422 = Revisa lo que has escrito
status-429 = Demasiados intentos
status-500 = Algo ha salido mal
status-503 = No disponible por un momento
status-507 = Almacenamiento lleno
